// ringcast-client: the client of the ringcast push server (docs/client.md).
export { RingcastClient } from './client.js';
export type * from './types.js';
