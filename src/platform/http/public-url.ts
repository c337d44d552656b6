/**
 * The base of the addresses the service hands out (feeds, links in messages): PUBLIC_URL, else
 * this host's at its port.
 */
export const publicBaseUrl = (config: { publicUrl: string | null; port: number }): string =>
  config.publicUrl ?? `http://localhost:${config.port}`;
