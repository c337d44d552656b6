import { supportedNodeRange, unsupportedNodeMessage } from '../../src/runtime';

describe('the supported Node versions (package.json engines.node)', () => {
  it('are Node 24 and later (26 the active LTS), and Node 22 from 22.18 (graphile-worker 0.18 needs it)', () => {
    expect(supportedNodeRange()).toBe('^22.18.0 || >=24.0.0');
    for (const version of [
      '26.0.0',
      '26.12.1',
      '24.0.0',
      '24.22.3',
      '25.1.0',
      '22.18.0',
      '22.23.5',
    ]) {
      expect(unsupportedNodeMessage(version)).toBeNull();
    }
  });

  it('refuse Node 20 and an early Node 22 with one line naming what is needed', () => {
    for (const version of ['20.20.2', '22.17.0', '23.11.0', '18.20.0']) {
      expect(unsupportedNodeMessage(version)).toBe(
        `Node.js ${version} is not supported: this service needs Node.js ^22.18.0 || >=24.0.0 (26 LTS recommended).`,
      );
    }
  });

  it('include the Node running this suite', () => {
    expect(unsupportedNodeMessage(process.versions.node)).toBeNull();
  });
});
