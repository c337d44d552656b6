import { browserBaseUrl, startedAt } from '../../src/home';

describe('the start log line', () => {
  it('shows a service listening on every interface at localhost, where a browser opens it', () => {
    expect(startedAt('http://0.0.0.0:8000')).toEqual({
      url: 'http://localhost:8000',
      listening: 'http://0.0.0.0:8000',
      graphql: 'http://localhost:8000/graphql',
      home: 'http://localhost:8000/',
      ide: 'http://localhost:8000/graphql',
      restDocs: 'http://localhost:8000/api/v1/docs',
      openapi: 'http://localhost:8000/api/v1/openapi.json',
      sdl: 'http://localhost:8000/graphql/schema.graphql',
      health: {
        liveness: 'http://localhost:8000/health/liveness',
        readiness: 'http://localhost:8000/health/readiness',
      },
    });
  });

  it('keeps an address a browser can open as it is', () => {
    expect(browserBaseUrl('http://[::]:8000')).toBe('http://localhost:8000');
    expect(browserBaseUrl('http://127.0.0.1:41234')).toBe('http://127.0.0.1:41234');
    expect(browserBaseUrl('http://[::1]:8000')).toBe('http://[::1]:8000');
    expect(browserBaseUrl('http://10.0.0.5:8000')).toBe('http://10.0.0.5:8000');
  });
});
