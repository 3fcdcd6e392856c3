export function postgresBin(): string | null;
export function startPostgres(options?: { tls?: boolean }): Promise<{
  url: string;
  port: number;
  dir: string;
  /** With `tls`: the CA that signed the server's certificate (for `localhost` only), and one that signed nothing. */
  tls: { ca: string; otherCa: string; cert: string } | null;
  stop(): void;
  pause(): void;
  resume(): void;
}>;
