// Starts the built server ($RINGCAST_BIN, else this checkout's build/) on a free loopback port.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assertCleanExit } from '../../../tests/common/server_exit.mjs';

export const SERVER_BIN = process.env.RINGCAST_BIN ||
  fileURLToPath(new URL('../../../build/server/ringcast', import.meta.url));

/** Resolves to { url, token, stop() }; stop() checks a clean exit after SIGTERM. */
export async function startServer(extraArgs = []) {
  if (!existsSync(SERVER_BIN)) throw new Error(`no server binary at ${SERVER_BIN}: build it or set RINGCAST_BIN`);
  const token = randomBytes(16).toString('hex');
  const child = spawn(SERVER_BIN, ['--listen', '127.0.0.1:0', '--admin-token', token, ...extraArgs],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const exited = new Promise((resolve) => { child.on('exit', (code, signal) => resolve({ code, signal })); });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not report its port:\n${log}`)), 10000);
    const onData = (chunk) => {
      log += chunk;
      const match = /listening on (\S+):(\d+)/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(`http://${match[1]}:${match[2]}/`);
      }
    };
    child.stderr.on('data', onData);
    child.stdout.on('data', onData);
    exited.then(({ code, signal }) => reject(new Error(`server exited (${code ?? signal}):\n${log}`)));
  });
  return {
    url,
    token,
    stop: async () => {
      child.kill('SIGTERM');
      let killed = false;
      const killer = setTimeout(() => { killed = true; child.kill('SIGKILL'); }, 8000);
      const exit = await exited;
      clearTimeout(killer);
      assertCleanExit(exit, log, { killed });
    },
  };
}
