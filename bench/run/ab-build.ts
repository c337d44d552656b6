import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeVersionOf } from '../lib/options';
import { ROOT } from '../lib/paths';
import { log } from './progress';

// Build A of an A/B run: the ref checked out in a git worktree of its own, installed and built
// with the ref's own build command, kept between runs (a ref's build never changes).

/** Where the worktrees of --against live: outside the repository, so no tool of the tree sees them. */
const WORKTREES = '/tmp/bench-ab';

/** A build of the service the bench can start: `node <flags of root> <root>/dist/src/main.js`. */
export interface Build {
  /** What the report calls it: the short commit, and whether the tree has changes on top. */
  label: string;
  /** The repository (or worktree) holding package.json, node_modules and dist/. */
  root: string;
  /** Its `npm run build` (the compiler matters to what is measured). */
  buildCommand: string;
  /** Files of src/, rest/ and package.json with uncommitted changes (the working tree only). */
  changes: string[];
  /** The Node.js binary that runs it, when not the bench's own (--against-node). */
  node?: string;
}

function git(args: readonly string[], trim = true): string {
  const out = execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return trim ? out.trim() : out;
}

function run(command: string, args: readonly string[], cwd: string, what: string): void {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    throw new Error(`${what} failed in ${cwd} (exit ${result.status ?? result.signal})`);
  }
}

const read = (path: string): string | null =>
  existsSync(path) ? readFileSync(path, 'utf8') : null;

function buildCommand(root: string): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  return pkg.scripts?.['build'] ?? 'none';
}

/** The commit `ref` names, or a usage-level error that says so. */
export function resolveRef(ref: string): string {
  try {
    return git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new Error(`--against ${ref}: not a commit of this repository`);
  }
}

/**
 * The ref in /tmp/bench-ab/<commit>: `git worktree add --detach`; node_modules symlinked to the
 * working tree's when both package-lock.json files are identical, else `npm ci`; then the ref's own
 * `npm run build` (whatever it was at that commit: tsc or SWC). A marker file records a finished
 * build, so the next A/B against the same commit starts at once.
 */
export function buildRef(ref: string): Build {
  const commit = resolveRef(ref);
  const short = commit.slice(0, 7);
  const dir = join(WORKTREES, commit);
  const marker = join(dir, '.bench-ab-built');
  if (read(marker) === commit) {
    log(`Build A: ${short} already built in ${dir}.`);
    return { label: short, root: dir, buildCommand: buildCommand(dir), changes: [] };
  }
  if (!existsSync(join(dir, '.git'))) {
    mkdirSync(WORKTREES, { recursive: true });
    log(`Build A: git worktree add --detach ${dir} ${short}…`);
    git(['worktree', 'add', '--detach', dir, commit]);
  }
  // npm writes node_modules/.package-lock.json last: without it, an install was cut short.
  if (!existsSync(join(dir, 'node_modules/.package-lock.json'))) {
    const lock = read(join(dir, 'package-lock.json'));
    if (lock !== null && lock === read(join(ROOT, 'package-lock.json'))) {
      log('Build A: package-lock.json is identical: using the working tree node_modules.');
      rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    } else {
      log('Build A: package-lock.json differs from the working tree: npm ci (a minute or so)…');
      run(
        'npm',
        ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
        dir,
        'npm ci',
      );
    }
  }
  log(`Build A: npm run build at ${short}…`);
  run('npm', ['run', 'build', '--silent'], dir, 'npm run build');
  if (!existsSync(join(dir, 'dist/src/main.js'))) {
    throw new Error(`npm run build at ${short} wrote no dist/src/main.js`);
  }
  writeFileSync(marker, commit);
  return { label: short, root: dir, buildCommand: buildCommand(dir), changes: [] };
}

/**
 * The two builds of a runtime A/B: the working tree's own build, run by the Node.js binary `node`
 * (A) and by the bench's own (B).
 */
export function runtimeBuilds(node: string): { a: Build; b: Build } {
  const tree = workingTreeBuild();
  return {
    a: { ...tree, node, label: `${tree.label} on Node ${nodeVersionOf(node)}` },
    b: { ...tree, label: `${tree.label} on Node ${process.version}` },
  };
}

/** Build B: the working tree as it is (`npm run build` has just compiled it into dist/). */
export function workingTreeBuild(): Build {
  const commit = git(['rev-parse', '--short=7', 'HEAD']);
  // Not trimmed: each line starts with two status columns, the first often a space.
  const changes = git(['status', '--porcelain', '--', 'src', 'rest', 'package.json'], false)
    .split('\n')
    .filter(Boolean)
    .map((line) => line.slice(3));
  return {
    label: changes.length > 0 ? `${commit} + uncommitted changes` : commit,
    root: ROOT,
    buildCommand: buildCommand(ROOT),
    changes,
  };
}
