import { randomUUID } from 'node:crypto';
import type { Transform } from 'node:stream';
import { constants, createBrotliCompress, createGzip } from 'node:zlib';

/**
 * What compressing a JSON body costs, by size: CPU per body through a zlib stream (as the
 * `compression` middleware does it: gzip at zlib's default level, brotli at quality 4) and the
 * bytes it saves. Bodies are UserPublic records as the REST face writes them.
 *
 *   tsc -p bench/tsconfig.json && node dist/bench/compression-cost.js
 */

function record(n: number): Record<string, unknown> {
  return {
    name: `Member Number ${n}`,
    email: `member.${n}@example.com`,
    account: `member.${n}`,
    id: randomUUID(),
    roles: 'user',
    is_active: true,
    is_verified: true,
    is_superuser: false,
    bio: n % 3 === 0 ? 'Enjoys long meetings and short agendas.' : null,
    dob: null,
    phone: null,
    avatar_photo_id: null,
    deleted_at: null,
    created_at: '2026-11-22T09:30:00.000Z',
    updated_at: '2026-11-22T09:30:00.000Z',
  };
}

/** A JSON body of about `size` bytes. */
function body(size: number): Buffer {
  const data: unknown[] = [];
  let text = '';
  for (let n = 0; text.length < size; n += 1) {
    data.push(record(n));
    text = JSON.stringify({ data, count: data.length });
  }
  return Buffer.from(text.slice(0, Math.max(size, 2)));
}

function compressOnce(make: () => Transform, input: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = make();
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
    stream.on('end', () => resolve(bytes));
    stream.on('error', reject);
    stream.end(input);
  });
}

const encoders: Array<[string, () => Transform]> = [
  ['gzip', () => createGzip()],
  ['br q4', () => createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 4 } })],
];

async function main(): Promise<void> {
  const sizes = [256, 512, 1024, 1460, 2048, 4096, 8192, 16384, 37_000];
  const rows: string[] = [
    '| body bytes | encoding | compressed bytes | saved | CPU µs per body | CPU µs per KiB saved |',
    '| ---: | --- | ---: | ---: | ---: | ---: |',
  ];
  for (const size of sizes) {
    const input = body(size);
    for (const [name, make] of encoders) {
      const iterations = 1000;
      for (let i = 0; i < 200; i += 1) {
        await compressOnce(make, input); // warm-up
      }
      // The least of five trials: other load on a shared machine only ever adds time.
      let micros = Number.POSITIVE_INFINITY;
      let out = 0;
      for (let trial = 0; trial < 5; trial += 1) {
        const before = process.cpuUsage();
        for (let i = 0; i < iterations; i += 1) {
          out = await compressOnce(make, input);
        }
        const used = process.cpuUsage(before);
        micros = Math.min(micros, (used.user + used.system) / iterations);
      }
      const saved = input.length - out;
      rows.push(
        `| ${input.length} | ${name} | ${out} | ${Math.round((100 * saved) / input.length)}% | ` +
          `${micros.toFixed(1)} | ${saved > 0 ? ((micros * 1024) / saved).toFixed(1) : '–'} |`,
      );
    }
  }
  process.stdout.write(`${rows.join('\n')}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
