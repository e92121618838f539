// The CommonJS build, from the installed tarball (pack.test.mjs).
const { RingcastClient } = require('ringcast-client');

const client = new RingcastClient({ url: 'http://127.0.0.1:1/', user: 'cjs' });
console.log(JSON.stringify({ type: typeof RingcastClient, state: client.state }));
