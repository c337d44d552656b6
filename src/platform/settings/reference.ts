import { z } from 'zod';
import type { AnySettings } from './settings';

// The configuration reference (docs/configuration.md), written from the settings' own schemas:
// each variable's description and default where it is declared, nothing kept beside them.

/** The default a variable's schema holds (under its pipes and checks), or undefined. */
function defaultOf(schema: z.ZodType): unknown {
  if (schema instanceof z.ZodDefault) {
    return schema.def.defaultValue;
  }
  if (schema instanceof z.ZodPipe) {
    return defaultOf(schema.in as z.ZodType);
  }
  return undefined;
}

/** A variable's default as the reference states it: `value`, or – when it has none. */
function shownDefault(schema: z.ZodType): string {
  const text = schema.meta()?.defaultText;
  if (text !== undefined) {
    return text;
  }
  const value = defaultOf(schema);
  return value === undefined || value === '' ? '–' : `\`${String(value)}\``;
}

/** A table cell: one line, its pipes escaped. */
const cell = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

/** A markdown table padded as Prettier pads one, so that the file passes its check. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) =>
    Math.max(3, title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((text, column) => text.padEnd(widths[column]!)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
}

/** The rows of one group: every variable, its default and its description. */
function rowsOf(group: AnySettings): string[][] {
  return Object.entries(group.variables).map(([name, schema]) => {
    const description = (schema as z.ZodType).meta()?.description;
    if (!description) {
      throw new Error(`${name} (${group.area}) has no description: declare it with .meta()`);
    }
    return [`\`${name}\``, cell(shownDefault(schema as z.ZodType)), cell(description)];
  });
}

/**
 * The reference of `groups`: `intro` (markdown), then, for each area in order, a heading and a
 * table of its variables.
 */
export function settingsReference(
  title: string,
  intro: string,
  groups: readonly AnySettings[],
): string {
  const sections = groups.flatMap((group) => [
    `## ${group.area}`,
    '',
    ...(group.about ? [group.about, ''] : []),
    ...table(['variable', 'default', 'meaning'], rowsOf(group)),
    '',
  ]);
  return [`# ${title}`, '', intro.trim(), '', ...sections].join('\n');
}
