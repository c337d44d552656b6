import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import {
  anchors,
  codeBlocks,
  EXECUTED_SH_SECTIONS,
  headings,
  readDoc,
  ROOT,
  section,
  slug,
} from './markdown';

/*
 * The docs a newcomer reads hold together: every relative link and anchor resolves, every shell
 * command names an npm script that exists (or is run by a test), and nothing points a reader to a
 * file outside the repository.
 */

const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text of a markdown file with its code blocks and inline code blanked out. */
function prose(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line.replace(/`[^`]*`/g, '``');
    })
    .join('\n');
}

/** Every link target of a file's prose: `[text](target)` and `![alt](target)`, with its line. */
function links(text: string): { target: string; line: number }[] {
  return prose(text)
    .split('\n')
    .flatMap((line, index) =>
      [...line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => ({
        target: match[1] as string,
        line: index + 1,
      })),
    );
}

const SCRIPTS = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: object }).scripts,
);

/** npm's own commands the docs use (not scripts). */
const NPM_COMMANDS = new Set(['ci', 'install', 'i']);

/**
 * Commands besides npm that a doc may show without a test running them, each for a reason the
 * test checks: Docker Compose (the compose file and the Dockerfile are in the repository) and
 * the shell's own `test` and `echo` with `openssl rand`, which make the `.env` it reads.
 */
const OTHER_COMMANDS: Record<string, () => boolean> = {
  docker: () =>
    existsSync(join(ROOT, 'docker-compose.yml')) && existsSync(join(ROOT, 'Dockerfile')),
  test: () => true,
  echo: () => true,
};

/** The commands of a shell block: continuation lines joined, comments dropped, split at ; && || |. */
function commandsOf(code: string): string[] {
  return code
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''))
    .flatMap((line) => line.split(/;|&&|\|\||\|/))
    .map((command) =>
      command
        .replace(/\$\([^)]*\)/g, 'X')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((command) => command !== '');
}

/** What a command runs: its first word after any `NAME=value` settings, and the rest. */
function program(command: string): { name: string; args: string[] } | null {
  const words = command.split(/\s+/);
  while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0] as string)) {
    words.shift();
  }
  const [name, ...args] = words;
  return name === undefined ? null : { name, args };
}

/** Why a command of a block no test runs is not acceptable, or null when it is. */
function problemOf(command: string): string | null {
  const run = program(command);
  if (!run) {
    return null; // settings only: `DATABASE_POOLER=transaction`
  }
  if (run.name === 'npm') {
    const [verb, script] = run.args;
    if (verb === 'run') {
      return script && SCRIPTS.includes(script) ? null : `no npm script "${script}"`;
    }
    if (verb && (NPM_COMMANDS.has(verb) || SCRIPTS.includes(verb))) {
      return null;
    }
    return `npm ${verb} is neither an npm command the docs may use nor a script`;
  }
  const allowed = OTHER_COMMANDS[run.name];
  if (allowed) {
    return allowed() ? null : `${run.name}: what it needs is missing`;
  }
  return `${run.name} is not an npm script, and no test runs this block`;
}

describe('the docs', () => {
  it('are README.md, CONTRIBUTING.md and the guides of docs/', () => {
    expect(DOCS).toEqual(
      expect.arrayContaining([
        'README.md',
        'CONTRIBUTING.md',
        'docs/api.md',
        'docs/rest-contract.md',
        'docs/operations.md',
        'docs/calendars.md',
        'docs/webhooks.md',
        'docs/architecture.md',
      ]),
    );
  });

  it('keep the README to a screen or two: at most 200 lines', () => {
    expect(readDoc('README.md').trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it.each(DOCS)(
    '%s: every relative link names a file of the repository, and its anchor a heading',
    (doc) => {
      const text = readDoc(doc);
      const broken: string[] = [];
      for (const { target, line } of links(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
          continue; // https:, mailto:: not checked here
        }
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? join(ROOT, doc) : join(ROOT, dirname(doc), decodeURI(path));
        if (relative(ROOT, file).startsWith('..') || !existsSync(file)) {
          broken.push(`${doc}:${line}: ${target}: no such file`);
          continue;
        }
        if (anchor !== undefined && statSync(file).isFile() && file.endsWith('.md')) {
          if (!anchors(readFileSync(file, 'utf8')).has(anchor)) {
            broken.push(`${doc}:${line}: ${target}: no heading with that anchor`);
          }
        }
      }
      expect(broken).toEqual([]);
    },
  );

  it.each(DOCS)('%s: every shell command names an npm script, or a test runs its block', (doc) => {
    const text = readDoc(doc);
    const executed = EXECUTED_SH_SECTIONS.filter((place) => place.file === doc).flatMap((place) =>
      codeBlocks(section(text, place.heading)).map((block) => block.code),
    );
    const problems = codeBlocks(text)
      .filter((block) => block.lang === 'sh' && !executed.includes(block.code))
      .flatMap((block) =>
        commandsOf(block.code).flatMap((command) => {
          const problem = problemOf(command);
          return problem ? [`${doc}:${block.line}: ${command}: ${problem}`] : [];
        }),
      );
    expect(problems).toEqual([]);
  });

  it('mark shell blocks as sh, so the check above sees them', () => {
    const unmarked = DOCS.flatMap((doc) =>
      codeBlocks(readDoc(doc))
        .filter((block) => ['bash', 'shell', 'console', 'shell-session'].includes(block.lang))
        .map((block) => `${doc}:${block.line}: ${block.lang}`),
    );
    expect(unmarked).toEqual([]);
  });

  it('send no reader to a file outside the repository', () => {
    // Spelt in pieces, so that this file does not name them itself.
    const outside = [
      ['CONTRACT', 'md'].join('.'),
      ['interface', 'md'].join('.'),
      '/work/' + 'shared',
    ];
    const files = [
      ...DOCS,
      ...['src', 'rest', 'test', 'bench', 'scripts'].flatMap((dir) => sourceFiles(dir)),
    ];
    const naming = files.filter((file) =>
      outside.some((name) => readFileSync(join(ROOT, file), 'utf8').includes(name)),
    );
    expect(naming).toEqual([]);
  });
});

/** The text files of a folder of the repository, recursively, by their paths from the root. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      return entry.name === 'node_modules' ? [] : sourceFiles(path);
    }
    return /\.(ts|tsx|cjs|js|mjs|graphql|md|json|sh)$/.test(entry.name) ? [path] : [];
  });
}

describe('the anchors the link check expects', () => {
  it('are GitHub slugs of the headings, repeats numbered', () => {
    expect(slug('REST API (`/api/v1`)')).toBe('rest-api-apiv1');
    expect(slug('Retries: `Idempotency-Key`')).toBe('retries-idempotency-key');
    expect(slug('8. Additions on every face')).toBe('8-additions-on-every-face');
    expect([...anchors('# A\n## Notes\n```\n# not a heading\n```\n## Notes\n')]).toEqual([
      'a',
      'notes',
      'notes-1',
    ]);
    expect(headings('## x\n').map((h) => h.text)).toEqual(['x']);
  });

  it('split shell blocks into the commands they run', () => {
    expect(commandsOf('A=1 npm start   # serves\nnpm ci && npm run \\\n  check\n')).toEqual([
      'A=1 npm start',
      'npm ci',
      'npm run check',
    ]);
  });
});
