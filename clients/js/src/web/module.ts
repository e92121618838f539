// The server's /ringcast.mjs: `import { RingcastClient } from '/ringcast.mjs'` (or its default).
// It loads the classic script /ringcast.js beside it and exports what that script defines, so the
// client is built, served and cached once for both ways of loading it.
import type { RingcastClient as Client } from '../index.js';
import './ringcast.js';

const RingcastClient = (globalThis as unknown as { RingcastClient: typeof Client }).RingcastClient;
export { RingcastClient, RingcastClient as default };
