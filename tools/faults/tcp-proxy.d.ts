/** Types of tcp-proxy.js for the TypeScript tests. */
export type ProxyMode = 'pass' | 'cut' | 'blackhole';

export interface TcpProxy {
  port: number;
  readonly mode: ProxyMode;
  readonly connections: number;
  setMode(mode: ProxyMode): void;
  /** Cut when a message to the database contains `text`; that message is lost. */
  cutOn(text: string): void;
  close(): Promise<void>;
}

export function startTcpProxy(options: {
  targetHost?: string;
  targetPort: number;
  listenPort?: number;
}): Promise<TcpProxy>;
