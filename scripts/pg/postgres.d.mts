export function postgresBin(): string | null;
export function startPostgres(): Promise<{
  url: string;
  port: number;
  dir: string;
  stop(): void;
  pause(): void;
  resume(): void;
}>;
