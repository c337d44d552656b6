import { readFileSync } from 'node:fs';

/** A V8 CPU profile (.cpuprofile), as `node --cpu-prof` writes it. */
interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  where: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  /** Sampled time (ms) without idle. */
  busyMs: number;
  idleMs: number;
  functions: SelfTime[];
  /** Self time by package (node_modules/<pkg>), node internals, the service's own code. */
  packages: SelfTime[];
}

const PSEUDO = new Set(['(program)', '(garbage collector)', '(idle)', '(root)']);

/** Where a script belongs: an npm package, node itself, or the project. */
export function packageOf(url: string, functionName: string): string {
  if (PSEUDO.has(functionName) && url === '') {
    return functionName;
  }
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:') || url === '') {
    return 'node (built-in)';
  }
  const dist = url.indexOf('/dist/');
  if (dist !== -1) {
    return `project ${url
      .slice(dist + 6)
      .split('/')
      .slice(0, 2)
      .join('/')}`;
  }
  return url;
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) {
    return url.slice(modules + 'node_modules/'.length);
  }
  const dist = url.indexOf('/dist/');
  return dist !== -1 ? url.slice(dist + 1) : url.replace(/^file:\/\//, '');
}

/**
 * Self time per function and per package of a .cpuprofile file, leaving out the samples of the
 * first `skipMs` (start-up and warm-up).
 */
export function summarizeProfile(file: string, skipMs = 0, top = 30): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByNode = new Map<number, number>();
  let at = 0;
  profile.samples.forEach((id, i) => {
    // timeDeltas[i] is the time before sample i; attribute the next delta to this sample.
    at += (profile.timeDeltas[i] ?? 0) / 1000;
    if (at >= skipMs) {
      const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
      selfByNode.set(id, (selfByNode.get(id) ?? 0) + ms);
    }
  });
  const functions = new Map<string, SelfTime>();
  const packages = new Map<string, SelfTime>();
  let idleMs = 0;
  let busyMs = 0;
  for (const [id, ms] of selfByNode) {
    const node = byId.get(id);
    if (!node) {
      continue;
    }
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idleMs += ms;
      continue;
    }
    busyMs += ms;
    const name = functionName || '(anonymous)';
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
    const key = `${name} ${where}`;
    const entry = functions.get(key) ?? { name, where, ms: 0, share: 0 };
    entry.ms += ms;
    functions.set(key, entry);
    const pkg = packageOf(url, functionName);
    const group = packages.get(pkg) ?? { name: pkg, where: '', ms: 0, share: 0 };
    group.ms += ms;
    packages.set(pkg, group);
  }
  const ranked = (map: Map<string, SelfTime>, n: number): SelfTime[] =>
    [...map.values()]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, n)
      .map((entry) => ({ ...entry, share: busyMs > 0 ? entry.ms / busyMs : 0 }));
  return { busyMs, idleMs, functions: ranked(functions, top), packages: ranked(packages, 20) };
}

export function profileMarkdown(title: string, summary: ProfileSummary): string {
  const pct = (share: number): string => `${(share * 100).toFixed(1)}%`;
  const lines = [
    `### ${title}`,
    '',
    `Busy ${(summary.busyMs / 1000).toFixed(1)} s sampled, idle ${(summary.idleMs / 1000).toFixed(1)} s.`,
    '',
    '| self time by package | ms | share of busy |',
    '| --- | ---: | ---: |',
    ...summary.packages.map((p) => `| ${p.name} | ${p.ms.toFixed(0)} | ${pct(p.share)} |`),
    '',
    '| top self-time functions | where | ms | share of busy |',
    '| --- | --- | ---: | ---: |',
    ...summary.functions.map(
      (f) =>
        `| \`${f.name.replace(/\|/g, '\\|')}\` | ${f.where.replace(/\|/g, '\\|')} | ${f.ms.toFixed(0)} | ${pct(f.share)} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
