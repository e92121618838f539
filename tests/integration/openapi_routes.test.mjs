// docs/openapi.yaml against the route table the binary answers with (`ringcast --print-routes`,
// server/api/node_routes.cpp): every route is a path of the document with exactly its methods, and
// every path of the document is a route or one of the pages (x-ringcast-pages: the table's
// "otherwise", GET and HEAD of any other path outside /admin/). A route added, removed or given
// another method without the document fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runBinary } from './harness.mjs';
import { loadDocument, METHODS, PUSHER_APP_FLAGS } from './openapi.mjs';

const doc = loadDocument();

async function routeTable() {
  const r = await runBinary(['--print-routes', ...PUSHER_APP_FLAGS]);
  assert.equal(r.code, 0, `--print-routes exited ${r.code}: ${r.err}`);
  return JSON.parse(r.out);
}

// The methods of a path of the document, upper case and sorted.
function documentedMethods(item) {
  return METHODS.filter((m) => item[m]).map((m) => m.toUpperCase()).sort();
}

// The paths of the document a route stands for: itself, or for a prefix route ("/admin/scheduled/")
// each path that goes on from the prefix with a path parameter ("/admin/scheduled/{id}"; the Pusher
// API's "/apps/" stands for "/apps/{app_id}/events", "/apps/{app_id}/channels/{channel_name}", ...).
function documentPathsOf(route) {
  const paths = Object.keys(doc.paths);
  if (!route.prefix) return paths.filter((p) => p === route.path);
  return paths.filter((p) => p.startsWith(route.path) && /^\{[^/{}]+\}(\/.*)?$/u.test(p.slice(route.path.length)));
}

function isPages(item) {
  const ops = METHODS.filter((m) => item[m]).map((m) => item[m]);
  return ops.length > 0 && ops.every((op) => op['x-ringcast-pages'] === true);
}

test('every route of the table is in docs/openapi.yaml with the same methods', async () => {
  const table = await routeTable();
  assert.ok(table.routes.length >= 10, `a route table of ${table.routes.length} routes`);
  for (const route of table.routes) {
    const paths = documentPathsOf(route);
    assert.ok(paths.length > 0, `route ${route.path}${route.prefix ? '<rest>' : ''} (${route.methods.join(', ')}) is not in docs/openapi.yaml`);
    const methods = [...new Set(paths.flatMap((p) => documentedMethods(doc.paths[p])))].sort();
    assert.deepEqual(methods, [...route.methods].sort(),
      `${paths.join(', ')}: the document's methods differ from the route table's`);
    for (const p of paths)
      assert.ok(!isPages(doc.paths[p]), `${p} is a route of its own, not one of the pages: drop x-ringcast-pages`);
  }
});

test('every path of docs/openapi.yaml is a route of the table or one of the pages', async () => {
  const table = await routeTable();
  const routed = new Set(table.routes.flatMap(documentPathsOf));
  const pageMethods = new Set();
  for (const [p, item] of Object.entries(doc.paths)) {
    if (routed.has(p)) continue;
    assert.ok(isPages(item), `${p} names no route of the table (and is not marked x-ringcast-pages)`);
    assert.ok(!p.startsWith('/admin/'), `${p}: no page is under /admin/ (the table answers 404 there)`);
    for (const m of documentedMethods(item)) {
      assert.ok(table.otherwise.includes(m), `${p}: the pages take ${table.otherwise.join(', ')}, not ${m}`);
      pageMethods.add(m);
    }
  }
  assert.deepEqual([...pageMethods].sort(), [...table.otherwise].sort(),
    'the pages\' methods in the document differ from the table\'s');
});
