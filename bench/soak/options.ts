import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../lib/paths';

// `npm run soak` options, parsed and checked (or the help printed) when this module loads.

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/soak';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
    users: { type: 'string', default: '40' },
    'sample-seconds': { type: 'string', default: '10' },
    'max-slope': { type: 'string', default: '1' },
    embedded: { type: 'boolean', default: false },
    'database-url': { type: 'string' },
    fresh: { type: 'boolean', default: false },
    out: { type: 'string', default: join(ROOT, 'bench/results/soak.md') },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  console.log(`npm run soak -- [options]
  --minutes N           run time (default 10)
  --concurrency N       concurrent clients (default 8)
  --users N             users registered up front (default 40)
  --sample-seconds N    RSS sampling interval (default 10)
  --max-slope MB        RSS slope over the second half, MB/min, above which growth is flagged (default 1)
  --embedded            the embedded database (PostgreSQL child process) in a temporary directory
  --database-url URL    PostgreSQL (default $DATABASE_URL or ${DEFAULT_DATABASE_URL})
  --fresh               drop and recreate that database first
  --out FILE            report (default bench/results/soak.md)`);
  process.exit(0);
}

function positive(name: string, value: string | undefined): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) {
    console.error(`--${name} must be a positive number`);
    process.exit(2);
  }
  return parsed;
}

export const options = {
  minutes: positive('minutes', args.minutes),
  concurrency: Math.round(positive('concurrency', args.concurrency)),
  users: Math.max(4, Math.round(positive('users', args.users))),
  sampleMs: positive('sample-seconds', args['sample-seconds']) * 1000,
  maxSlope: positive('max-slope', args['max-slope']),
  embedded: args.embedded ?? false,
  databaseUrl: args['database-url'] ?? process.env['DATABASE_URL'] ?? DEFAULT_DATABASE_URL,
  fresh: args.fresh ?? false,
  out: resolve(args.out ?? join(ROOT, 'bench/results/soak.md')),
};
