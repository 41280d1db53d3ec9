/**
 * HTTP/1.1 over a bare TCP socket, for tests about the connection itself (docs/security.md,
 * docs/decisions/027-slow-clients.md, docs/decisions/032-pages-at-sea.md): a client that stops
 * reading, a body sent in halves, a connection reused after a pause. It sends what it is given
 * and collects what comes back, as an attacker's or a hand-written client's would.
 */
import net from "node:net";
import { eventually } from "./fake-resend";

export type RawConnection = {
  socket: net.Socket;
  /** Resolves with the first bytes the server sends. */
  firstData: Promise<void>;
  /** Resolves when the connection is closed, by either side. */
  ended: Promise<void>;
  /** Everything received so far, as latin1. */
  text: () => string;
  closed: () => boolean;
};

/**
 * A connection to `url`'s host and port; with `stopReading`, it reads nothing more after the
 * first bytes until `socket.resume()`.
 */
export function rawConnection(url: string, { stopReading = false } = {}): RawConnection {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port) });
  let received = Buffer.alloc(0);
  let closed = false;
  const firstData = new Promise<void>((resolve) => socket.once("data", () => resolve()));
  socket.on("data", (chunk: Buffer) => {
    if (stopReading && received.length === 0) socket.pause();
    received = Buffer.concat([received, chunk]);
  });
  socket.on("error", () => {});
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.once("close", () => (closed = true));
  return { socket, firstData, ended, text: () => received.toString("latin1"), closed: () => closed };
}

/**
 * The first whole answer in `text` (framed by Content-Length or chunked), or undefined while it
 * is still arriving.
 */
export function answerIn(text: string): { status: number; head: string } | undefined {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const head = text.slice(0, end);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  if (!length && !/\r\ntransfer-encoding: *chunked/i.test(head)) throw new Error(`no framing in:\n${head}`);
  const body = text.slice(end + 4);
  const whole = length ? body.length >= Number(length) : body.endsWith("0\r\n\r\n");
  return whole ? { status: Number(head.split(" ")[1]), head } : undefined;
}

/**
 * The whole answer that follows the first `from` characters `connection` received, once it has
 * arrived; undefined when the connection closed first (at most 10 s).
 */
export function answerAfter(connection: RawConnection, from = 0) {
  return eventually(
    () => {
      const answer = answerIn(connection.text().slice(from));
      if (!answer && !connection.closed()) throw new Error("the answer is still arriving");
      return answer;
    },
    10_000,
    20,
  );
}
