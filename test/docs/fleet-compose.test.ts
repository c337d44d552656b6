import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CONFIG_VARIABLES } from '../../src/app-config';
import { HEALTH_PATH } from '../../src/platform/http/health.routes';

/**
 * docker-compose.fleet.yml, which Docker cannot run here: its shape is checked instead (three API
 * instances behind the balancer, reads on the replica, the variables the service reads), and
 * the balancer's configuration and the database scripts by their own tools.
 */

const ROOT = join(__dirname, '..', '..');
const FLEET = join(ROOT, 'deploy', 'fleet');

interface Service {
  image?: string;
  build?: unknown;
  deploy?: { replicas?: number };
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  command?: string[];
}

const compose = parse(readFileSync(join(ROOT, 'docker-compose.fleet.yml'), 'utf8'), {
  merge: true,
}) as { services: Record<string, Service> };
const { services } = compose;

const hostOf = (url: string | undefined): string => new URL(url ?? '').hostname;

describe('docker-compose.fleet.yml', () => {
  it('runs three API instances, reachable only through the balancer', () => {
    const api = services['api'];
    expect(api?.deploy?.replicas).toBe(3);
    expect(api?.ports).toBeUndefined();
    expect(services['balancer']?.image).toMatch(/^haproxy:/);
    expect(services['balancer']?.ports).toContain('8000:8080');
  });

  it('gives the instances the primary, the replica for reads, and Redis', () => {
    const env = services['api']?.environment ?? {};
    expect(hostOf(env['DATABASE_URL'])).toBe('primary');
    expect(hostOf(env['DATABASE_READ_URLS'])).toBe('replica');
    expect(hostOf(env['REDIS_URL'])).toBe('redis');
    expect(services['primary']?.image).toBe('postgres:18');
    expect(services['replica']?.image).toBe('postgres:18');
    // Migrations run once, before the instances start.
    expect(env['MIGRATE_ON_START']).toBe('false');
    expect(services['api']?.depends_on).toMatchObject({
      migrate: { condition: 'service_completed_successfully' },
    });
  });

  it('sets only variables the service reads', () => {
    for (const name of ['api', 'migrate']) {
      const unknown = Object.keys(services[name]?.environment ?? {}).filter(
        (variable) => !CONFIG_VARIABLES.includes(variable),
      );
      expect({ service: name, unknown }).toEqual({ service: name, unknown: [] });
    }
  });

  it('mounts scripts and a balancer configuration that exist', () => {
    const mounted = Object.values(services)
      .flatMap((service) => service.volumes ?? [])
      .filter((volume) => volume.startsWith('./'))
      .map((volume) => join(ROOT, volume.split(':')[0] ?? ''));
    expect(mounted.length).toBe(3);
    for (const file of mounted) {
      expect(existsSync(file)).toBe(true);
    }
  });

  it('has database scripts bash can read', () => {
    for (const script of ['primary-init.sh', 'replica.sh']) {
      expect(spawnSync('bash', ['-n', join(FLEET, script)]).status).toBe(0);
    }
  });

  it('has the balancer check each instance’s readiness, and a configuration HAProxy accepts', () => {
    const config = readFileSync(join(FLEET, 'haproxy.cfg'), 'utf8');
    expect(config).toContain(`option httpchk GET ${HEALTH_PATH}/readiness`);
    expect(config).toContain('http-check expect status 204');
    const haproxy = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy'].find((file) =>
      existsSync(file),
    );
    if (!haproxy) {
      console.warn('haproxy -c skipped: HAProxy is not installed');
      return;
    }
    expect(execFileSync(haproxy, ['-c', '-f', join(FLEET, 'haproxy.cfg')]).toString()).toMatch(
      /Configuration file is valid/,
    );
  });
});
