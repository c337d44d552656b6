import { performance } from 'node:perf_hooks';
import { Presets, SingleBar } from 'cli-progress';

/** Progress of one phase: a live bar on a terminal, one summary line on stderr otherwise. */
export interface Phase {
  increment(by: number): void;
  done(): void;
}

/** Starts the progress display of one phase (users, follows, meetings, participants). */
export type PhaseStarter = (label: string, total: number) => Phase;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Phases drawn with cli-progress on stderr. */
export function progressOnStderr(stream: NodeJS.WriteStream = process.stderr): PhaseStarter {
  return (label, total) => {
    const started = performance.now();
    let value = 0;
    const bar = new SingleBar(
      {
        stream,
        format: `${label.padEnd(12)} [{bar}] {percentage}% | {value}/{total} | {duration_formatted} | ETA {eta_formatted}`,
        hideCursor: true,
        etaBuffer: 50,
        fps: 10,
      },
      Presets.shades_classic,
    );
    if (stream.isTTY) {
      bar.start(total, 0);
    }
    return {
      increment(by) {
        value += by;
        if (stream.isTTY) {
          bar.update(Math.min(value, total));
        }
      },
      done() {
        if (stream.isTTY) {
          bar.update(total);
          bar.stop();
        } else {
          stream.write(
            `${label}: ${value.toLocaleString('en-US')} rows in ${seconds(performance.now() - started)}\n`,
          );
        }
      },
    };
  };
}

/** No output at all (for tests). */
export const silentProgress: PhaseStarter = () => ({
  increment() {},
  done() {},
});
