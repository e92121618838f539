// docs/openapi.yaml read for the tests that hold it to the server: its operations in document
// order, its $refs resolved, and a JSON Schema 2020-12 validator (the dialect of OpenAPI 3.1) of
// any schema in it by its place in the document.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import Ajv2020 from 'ajv/dist/2020.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DOCUMENT_PATH = path.resolve(here, '../../docs/openapi.yaml');
export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
// The Pusher door's routes (/apps/...) exist only with a Pusher app: the tests give the server the
// app of Pusher's own documented example (its "HTTP API reference"), whose signed request the
// document's examples send (answered 401: its timestamp is from 2012).
export const PUSHER_APP_FLAGS = ['--pusher-app-id', '3', '--pusher-key', '278d425bdf160c739803',
  '--pusher-secret', '7ad3773142a6692b25b8'];

export function loadDocument(file = DOCUMENT_PATH) {
  return YAML.parse(readFileSync(file, 'utf8'));
}

// A JSON pointer's reference tokens ("#/a/b~1c" -> ["a", "b/c"]).
function pointerTokens(pointer) {
  return pointer.replace(/^#?\//u, '').split('/').map((t) => t.replace(/~1/gu, '/').replace(/~0/gu, '~'));
}

export function escapeToken(token) {
  return String(token).replace(/~/gu, '~0').replace(/\//gu, '~1');
}

export function pointerTo(...tokens) {
  return `#/${tokens.map(escapeToken).join('/')}`;
}

export function at(doc, pointer) {
  let node = doc;
  for (const t of pointerTokens(pointer)) {
    if (node === undefined || node === null) return undefined;
    node = node[t];
  }
  return node;
}

// An object that may be a {$ref} into the document, followed to what it names, with the pointer
// of where it is (for the validator).
export function resolve(doc, node, pointer) {
  while (node && typeof node.$ref === 'string') {
    pointer = node.$ref;
    node = at(doc, pointer);
    if (node === undefined) throw new Error(`unresolved $ref ${pointer}`);
  }
  return { node, pointer };
}

// Every operation in document order: { path, method, op, pointer, parameters: [{node, pointer}] }
// (path-level parameters first, as OpenAPI merges them).
export function operations(doc) {
  const out = [];
  for (const [p, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const parameters = [];
      (item.parameters ?? []).forEach((param, i) =>
        parameters.push(resolve(doc, param, pointerTo('paths', p, 'parameters', i))));
      (op.parameters ?? []).forEach((param, i) =>
        parameters.push(resolve(doc, param, pointerTo('paths', p, method, 'parameters', i))));
      out.push({ path: p, method, op, pointer: pointerTo('paths', p, method), parameters });
    }
  }
  return out;
}

// validate(pointer, value) -> null or the validator's errors, the schema at `pointer` of the
// document compiled once (its $refs resolve within the document).
export function schemaValidator(doc) {
  const id = 'https://ringcast.invalid/openapi.yaml';
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  ajv.addSchema({ ...doc, $id: id });
  const compiled = new Map();
  return (pointer, value) => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.getSchema(`${id}${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      compiled.set(pointer, validate);
    }
    return validate(value) ? null : validate.errors;
  };
}
