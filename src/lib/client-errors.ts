/**
 * What Node's HTTP server answers itself, before the app sees a request: one it cannot read as HTTP
 * (400), headers over its limit (431), chunk extensions over theirs (413), a request that did not
 * arrive within HTTP_TIMEOUTS (408). Node sends those with an empty body; the API's clients read every
 * error as JSON in the spec's shape, so the same statuses go out with one. As Node does, nothing is
 * written once a response has begun on the connection, and the connection is closed.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

type Answer = [status: number, message: string];

const ANSWERS: Record<string, Answer> = {
  HPE_HEADER_OVERFLOW: [431, 'Request headers are too large (at most 16 KB in all)'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Request chunk extensions are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request did not arrive in time'],
};
const MALFORMED: Answer = [400, 'The request could not be read as HTTP'];

/** The raw response, whole: the parser has given up on the connection, so no ServerResponse exists. */
function rawResponse([status, message]: Answer): string {
  // 413 says ValidationError wherever the API answers it (errors/http-errors.ts PayloadTooLarge)
  const body = JSON.stringify({ code: status === 413 ? 'ValidationError' : 'BadRequest', message });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** The server's `clientError` listener. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent && error.code !== 'ECONNRESET')
    socket.write(rawResponse(ANSWERS[error.code ?? ''] ?? MALFORMED));
  socket.destroy();
}
