/** Types of tcp-proxy.js for the TypeScript tests. */
export type ProxyMode = 'pass' | 'cut' | 'blackhole';

export interface TcpProxy {
  port: number;
  readonly mode: ProxyMode;
  readonly connections: number;
  setMode(mode: ProxyMode): void;
  /** The next message to the database that contains all of `texts` reaches it; its answer does not, and the link is cut. */
  cutOn(texts: string[]): void;
  close(): Promise<void>;
}

export function startTcpProxy(options: {
  targetHost?: string;
  targetPort: number;
  listenPort?: number;
}): Promise<TcpProxy>;
