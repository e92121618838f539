// docs/openapi.yaml's examples sent to the built server, every answer validated against the
// document: the status the example names (x-status, else the operation's lowest 2xx) and one the
// operation documents, its required headers, a Content-Type it documents and a body its schema
// accepts. The examples of one operation that share a name make one request; they run in the
// document's order against one fresh server, then the links of the answers are followed (publish
// -> reach and take down, schedule -> cancel). An answer that changes without the document fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, wsParseFrames } from './harness.mjs';
import { readFileSync } from 'node:fs';
import { loadDocument, operations, escapeToken, resolve, schemaValidator, at, DOCUMENT_PATH, PUSHER_APP_FLAGS } from './openapi.mjs';

const doc = loadDocument();
const validate = schemaValidator(doc);
const ops = operations(doc);
let srv;

before(async () => { srv = await startServer(['--poll-timeout', '1', ...PUSHER_APP_FLAGS]); });
after(async () => { await srv?.stop(); });

function needsAdminToken(op) {
  return (op.security ?? doc.security ?? []).some((s) => 'adminToken' in s);
}

function lowestSuccess(op) {
  const codes = Object.keys(op.responses).filter((c) => /^2\d\d$/u.test(c)).sort();
  return codes.length ? Number(codes[0]) : Number(Object.keys(op.responses).sort()[0]);
}

function schemaErrors(pointer, value) {
  const errors = validate(pointer, value);
  return errors ? JSON.stringify(errors.map((e) => `${e.instancePath} ${e.message}`)) : null;
}

// The requests an operation's examples make: [{ name, path, headers, body, status }].
function examplesOf(o) {
  const names = new Set();
  for (const { node } of o.parameters) Object.keys(node.examples ?? {}).forEach((n) => names.add(n));
  const body = o.op.requestBody && resolve(doc, o.op.requestBody, `${o.pointer}/requestBody`);
  const [mediaType, media] = body ? Object.entries(body.node.content)[0] : [];
  Object.keys(media?.examples ?? {}).forEach((n) => names.add(n));
  if (names.size === 0) names.add('(no parameters)');
  return [...names].map((name) => {
    let target = o.path;
    const queryParts = [];
    const headers = {};
    const statuses = new Set();
    const given = [];  // [schema pointer, value] of what this example sends
    o.parameters.forEach(({ node: param, pointer }) => {
      const ex = param.examples?.[name];
      if (!ex) return;
      if (ex['x-status']) statuses.add(ex['x-status']);
      given.push([`${pointer}/schema`, ex.value, `${param.in} ${param.name}`]);
      const text = String(ex.value);
      if (param.in === 'path') target = target.replace(`{${param.name}}`, encodeURIComponent(text));
      else if (param.in === 'query') queryParts.push(`${encodeURIComponent(param.name)}=${encodeURIComponent(text)}`);
      else if (param.in === 'header') headers[param.name] = text;
    });
    let payload;
    const ex = media?.examples?.[name];
    if (ex) {
      if (ex['x-status']) statuses.add(ex['x-status']);
      payload = JSON.stringify(ex.value);
      headers['Content-Type'] = mediaType;
      given.push([`${body.pointer}/content/${escapeToken(mediaType)}/schema`, ex.value, 'body']);
    }
    assert.ok(statuses.size <= 1, `${o.method} ${o.path} example ${name}: x-status disagree`);
    const status = statuses.size ? [...statuses][0] : lowestSuccess(o.op);
    assert.ok(/\{/u.test(target) === false, `${o.method} ${o.path} example ${name}: a path parameter has no example`);
    const search = queryParts.length ? `?${queryParts.join('&')}` : '';
    return { name, path: `${target}${search}`, headers, body: payload, status, given };
  });
}

// One request; the body is read to its end, except an event stream's (its first event) and a
// WebSocket's (its first frame, after the 101).
function send(method, path, headers, body) {
  return new Promise((resolvePromise, reject) => {
    const req = http.request({ host: srv.host, port: srv.port, method: method.toUpperCase(), path, headers, agent: false });
    const timer = setTimeout(() => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)), 10000);
    const done = (answer) => { clearTimeout(timer); resolvePromise(answer); };
    req.on('error', (e) => { clearTimeout(timer); reject(e); });
    req.on('upgrade', (res, socket, head) => {
      let buf = head;
      const first = () => {
        const { frames } = wsParseFrames(buf);
        if (!frames.length) return false;
        socket.destroy();
        done({ status: res.statusCode, headers: res.headers, frame: frames[0].payload.toString() });
        return true;
      };
      if (first()) return;
      socket.on('data', (c) => { buf = Buffer.concat([buf, c]); first(); });
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      const stream = (res.headers['content-type'] ?? '').startsWith('text/event-stream');
      res.on('data', (c) => {
        text += c;
        if (stream && text.includes('\n\n')) {
          res.destroy();
          done({ status: res.statusCode, headers: res.headers, text });
        }
      });
      res.on('end', () => done({ status: res.statusCode, headers: res.headers, text }));
      res.on('error', () => { /* an event stream destroyed after its first event */ });
    });
    if (body !== undefined) req.write(body);
    req.end();
  });
}

// Holds one answer to the document: its status, headers, Content-Type and body. Returns the
// documented response it matched and the body as JSON (if it is JSON).
function check(o, what, answer, expected) {
  const label = `${o.method.toUpperCase()} ${what}`;
  assert.equal(answer.status, expected, `${label}: status ${answer.status}, expected ${expected}; body ${answer.text ?? answer.frame}`);
  const key = String(answer.status);
  assert.ok(o.op.responses[key], `${label}: status ${key} is not documented for ${o.method} ${o.path}`);
  const { node: response, pointer } = resolve(doc, o.op.responses[key], `${o.pointer}/responses/${key}`);
  for (const [name, h] of Object.entries(response.headers ?? {})) {
    const { node: header, pointer: hp } = resolve(doc, h, `${pointer}/headers/${name}`);
    const value = answer.headers[name.toLowerCase()];
    if (header.required) assert.ok(value !== undefined, `${label}: header ${name} missing`);
    if (value !== undefined && header.schema) {
      const errors = schemaErrors(`${hp}/schema`, value);
      assert.equal(errors, null, `${label}: header ${name}: ${value}: ${errors}`);
    }
  }
  let json;
  if (answer.status === 101) {
    // The first frame of a WebSocket is hello.
    json = JSON.parse(answer.frame);
    const errors = schemaErrors('#/components/schemas/Hello', json);
    assert.equal(errors, null, `${label}: first frame ${answer.frame}: ${errors}`);
    return { response, json };
  }
  const content = response.content ?? {};
  if (Object.keys(content).length === 0) return { response, json };
  const type = answer.headers['content-type'];
  const mediaType = Object.keys(content).find((k) => k === type || (!k.includes(';') && k === type?.split(';')[0].trim()));
  assert.ok(mediaType, `${label}: Content-Type ${type} is not documented (${Object.keys(content).join(', ')})`);
  if (o.method === 'head' || !content[mediaType].schema) return { response, json };
  const schemaPointer = `${pointer}/content/${escapeToken(mediaType)}/schema`;
  let value = answer.text;
  if (mediaType.startsWith('application/json')) {
    json = JSON.parse(answer.text);
    value = json;
  } else if (mediaType.startsWith('text/event-stream')) {
    // The first event is hello; its data a Hello envelope.
    const event = /^event: hello\ndata: (.*)\n\n/u.exec(answer.text);
    assert.ok(event, `${label}: the stream does not begin with a hello event: ${answer.text}`);
    const errors = schemaErrors('#/components/schemas/Hello', JSON.parse(event[1]));
    assert.equal(errors, null, `${label}: hello ${event[1]}: ${errors}`);
  }
  const errors = schemaErrors(schemaPointer, value);
  assert.equal(errors, null, `${label}: body ${answer.text.slice(0, 300)}: ${errors}`);
  return { response, json };
}

function withToken(o, headers) {
  return needsAdminToken(o.op) ? { ...headers, Authorization: `Bearer ${srv.token}` } : headers;
}

// The value of a link's runtime expression: $response.body#/pointer.
function linkValue(expression, json) {
  const m = /^\$response\.body#(\/.*)$/u.exec(expression);
  assert.ok(m, `link parameter ${expression}: only $response.body#/... is supported here`);
  const value = at(json, m[1]);
  assert.notEqual(value, undefined, `link parameter ${expression}: not in ${JSON.stringify(json)}`);
  return value;
}

test('every documented example gets the documented answer, then every link of those answers', async () => {
  const ran = new Set();
  const links = [];
  for (const o of ops) {
    for (const ex of examplesOf(o)) {
      if (ex.status >= 200 && ex.status < 300 || ex.status === 101) {
        // An example meant to succeed must be one the schemas accept (redocly.yaml leaves this to us).
        for (const [pointer, value, what] of ex.given) {
          const errors = schemaErrors(pointer, value);
          assert.equal(errors, null, `${o.method} ${o.path} example ${ex.name}: ${what} ${JSON.stringify(value)}: ${errors}`);
        }
      }
      const answer = await send(o.method, ex.path, withToken(o, ex.headers), ex.body);
      const { response, json } = check(o, `${ex.path} (example ${ex.name})`, answer, ex.status);
      ran.add(o.pointer);
      for (const [name, link] of Object.entries(response.links ?? {})) links.push({ from: `${o.path} ${ex.name}`, name, link, json });
    }
  }
  assert.ok(links.length >= 3, `only ${links.length} links were followed`);
  for (const { from, name, link, json } of links) {
    const o = ops.find((x) => x.op.operationId === link.operationId);
    assert.ok(o, `link ${name} of ${from}: no operation ${link.operationId}`);
    let target = o.path;
    for (const [param, expression] of Object.entries(link.parameters ?? {}))
      target = target.replace(`{${param}}`, encodeURIComponent(String(linkValue(expression, json))));
    const answer = await send(o.method, target, withToken(o, {}));
    check(o, `${target} (link ${name} of ${from})`, answer, lowestSuccess(o.op));
    ran.add(o.pointer);
  }
  const missed = ops.filter((o) => !ran.has(o.pointer)).map((o) => `${o.method} ${o.path}`);
  assert.deepEqual(missed, [], 'operations no example reached');
});

test('every operation that needs the admin token answers 401 as documented without it', async () => {
  const guarded = ops.filter((o) => needsAdminToken(o.op));
  assert.ok(guarded.length >= 8, `${guarded.length} admin operations`);
  for (const o of guarded) {
    const [ex] = examplesOf(o);
    const answer = await send(o.method, ex.path, ex.headers, ex.body);
    check(o, `${ex.path} without the token`, answer, 401);
  }
});

test('GET /openapi.yaml serves docs/openapi.yaml byte for byte', async () => {
  const answer = await send('get', '/openapi.yaml', {});
  assert.equal(answer.status, 200);
  assert.equal(answer.headers['content-type'], 'application/yaml');
  assert.equal(answer.text, readFileSync(DOCUMENT_PATH, 'utf8'), 'the binary embeds another version: rebuild');
});
