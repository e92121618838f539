// Built from clients/js/src by clients/js/build.mjs (ringcast-client 0.1.0): do not edit, edit the package. See docs/client.md.

// src/web/module.ts
import "./ringcast.js";
var RingcastClient = globalThis.RingcastClient;
export {
  RingcastClient,
  RingcastClient as default
};
