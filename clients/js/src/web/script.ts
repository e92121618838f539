// The server's /ringcast.js: a classic script that defines globalThis.RingcastClient.
import { RingcastClient } from '../index.js';

(globalThis as { RingcastClient?: typeof RingcastClient }).RingcastClient = RingcastClient;
