// Generates src/openapi.ts from docs/openapi.yaml with openapi-typescript (a pinned
// devDependency): the envelopes of src/types.ts and the admin API of ringcast-client/publish are
// both taken from it. The output is committed, so building the package needs no generation;
// test/publish.test.mjs fails when it differs from a fresh run.
//   node generate_openapi_types.mjs           write src/openapi.ts
//   generatedTypes()                          the text it would write (for the test)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const here = dirname(fileURLToPath(import.meta.url));
export const DOCUMENT = join(here, '../../docs/openapi.yaml');
export const OUTPUT = join(here, 'src/openapi.ts');
const HEADER = '// Generated from docs/openapi.yaml by clients/js/generate_openapi_types.mjs ' +
  '(openapi-typescript): do not edit.\n';

export async function generatedTypes() {
  const ast = await openapiTS(readFileSync(DOCUMENT, 'utf8'));
  return HEADER + astToString(ast);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(OUTPUT, await generatedTypes());
}
