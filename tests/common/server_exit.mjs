// What every harness checks when it stops a server it started (the integration harness, the
// browser suites' support.mjs): it exited by itself with status 0 after SIGTERM, and its log has
// no sanitizer report (ASan/UBSan/TSan print theirs to stderr, some only at exit).
import assert from 'node:assert/strict';

export const SANITIZER_REPORT =
  /ERROR: (?:Address|Leak|Memory)Sanitizer|WARNING: ThreadSanitizer|runtime error:|SUMMARY: \w+Sanitizer/u;

// exit: { code, signal } of the 'exit' event; log: everything the server wrote; killed: whether
// the harness had to SIGKILL it.
export function assertCleanExit({ code, signal }, log, { killed = false } = {}) {
  const tail = log.split('\n').slice(-60).join('\n');
  assert.ok(!killed, `server did not exit after SIGTERM and was killed; log:\n${tail}`);
  assert.equal(signal, null, `server killed by ${signal}; log:\n${tail}`);
  assert.equal(code, 0, `server exit status ${code}; log:\n${tail}`);
  const report = SANITIZER_REPORT.exec(log);
  assert.equal(report, null, `sanitizer report in the server log:\n${report && log.slice(report.index, report.index + 3000)}`);
}
