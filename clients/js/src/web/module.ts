// The server's /ringcast.mjs: `import { RingcastClient } from '/ringcast.mjs'` (or its default).
export { RingcastClient, RingcastClient as default } from '../index.js';
