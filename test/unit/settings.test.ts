import { z } from 'zod';
import { settingsReference } from '../../src/platform/settings/reference';
import {
  assembleSettings,
  ConfigError,
  defineSettings,
} from '../../src/platform/settings/settings';

// The generic part of the configuration: groups of variables declared where they are used,
// assembled into one validated configuration and one reference.

const base = defineSettings({
  area: 'Base',
  variables: {
    MODE: z.enum(['a', 'b']).default('a').meta({ description: 'the mode' }),
  },
  configOf: (env) => ({ mode: env.MODE }),
});

const sized = defineSettings({
  area: 'Sized',
  reads: [base],
  variables: {
    SIZE: z.coerce.number().int().min(1).default(3).meta({ description: 'how many | at most' }),
    NAME: z.string().optional().meta({ description: 'a name', defaultText: 'the host name' }),
  },
  check(env, problem) {
    if (env.MODE === 'b' && env.SIZE > 5) {
      problem('SIZE', 'must be at most 5 in mode b');
    }
  },
  configOf: (env) => ({ size: env.MODE === 'b' ? env.SIZE * 2 : env.SIZE }),
});

describe('settings', () => {
  it("gives every group's slice, reading the variables of the groups it reads", () => {
    const settings = assembleSettings([base, sized]);
    expect(settings.variables).toEqual(['MODE', 'SIZE', 'NAME']);
    expect(settings.read({})).toEqual({ mode: 'a', size: 3 });
    expect(settings.read({ MODE: 'b', SIZE: '4' })).toEqual({ mode: 'b', size: 8 });
  });

  it('names every bad variable, then the problems of the checks across variables', () => {
    const settings = assembleSettings([base, sized]);
    const problemsOf = (source: Record<string, string>): string[] => {
      try {
        settings.read(source);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).problems;
      }
      throw new Error('expected a ConfigError');
    };
    expect(problemsOf({ MODE: 'c', SIZE: '0' }).map((p) => p.split(':')[0])).toEqual([
      'MODE',
      'SIZE',
    ]);
    expect(problemsOf({ MODE: 'b', SIZE: '9' })).toEqual(['SIZE: must be at most 5 in mode b']);
  });

  it('refuses a variable declared twice, and a group whose reads are not assembled', () => {
    expect(() => assembleSettings([base, base])).toThrow('MODE is declared twice (Base)');
    expect(() => assembleSettings([sized])).toThrow("the settings of Sized read Base's");
  });

  it('writes a reference of every variable with its default and its description', () => {
    expect(settingsReference('Title', 'Intro.', [base, sized]).split('\n')).toEqual([
      '# Title',
      '',
      'Intro.',
      '',
      '## Base',
      '',
      '| variable | default | meaning  |',
      '| -------- | ------- | -------- |',
      '| `MODE`   | `a`     | the mode |',
      '',
      '## Sized',
      '',
      '| variable | default       | meaning             |',
      '| -------- | ------------- | ------------------- |',
      '| `SIZE`   | `3`           | how many \\| at most |',
      '| `NAME`   | the host name | a name              |',
      '',
    ]);
  });

  it('refuses to document a variable without a description', () => {
    const bare = defineSettings({
      area: 'Bare',
      variables: { BARE: z.string().optional() },
      configOf: () => ({}),
    });
    expect(() => settingsReference('T', '', [bare])).toThrow('BARE (Bare) has no description');
  });
});
