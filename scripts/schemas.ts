// Writes the editor JSON Schemas into schemas/ (npm run schemas); a test checks they are current.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { configJsonSchema, mappingJsonSchema, shopFileJsonSchema } from '../src/schemas/index.js';

const dir = join(import.meta.dirname, '..', 'schemas');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'shopsync.schema.json'), `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
writeFileSync(join(dir, 'mapping.schema.json'), `${JSON.stringify(mappingJsonSchema(), null, 2)}\n`);
writeFileSync(join(dir, 'shop.schema.json'), `${JSON.stringify(shopFileJsonSchema(), null, 2)}\n`);
process.stdout.write('schemas/shopsync.schema.json, schemas/mapping.schema.json and schemas/shop.schema.json written\n');
