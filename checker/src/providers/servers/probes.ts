import { connect } from 'node:net';

/** Sends `payload` to 127.0.0.1:port and resolves true when the answer starts with `expect`. */
export function tcpAnswers(port: number, payload: string, expect: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write(payload));
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
      if (answer.length >= expect.length) done(answer.startsWith(expect));
    });
  });
}

export async function httpAnswers(url: string, expect: RegExp, timeoutMs = 1000): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return expect.test(await response.text());
  } catch {
    return false;
  }
}
