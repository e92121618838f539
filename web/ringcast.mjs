// ES module entry point: `import { RingcastClient } from '/ringcast.mjs'`.
// The implementation is the classic script beside it, which defines globalThis.RingcastClient;
// importing it for its side effect keeps a single copy of the code for both kinds of page.
import './ringcast.js';

export const RingcastClient = globalThis.RingcastClient;
export default RingcastClient;
