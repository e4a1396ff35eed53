import { startSandbox } from './src/sandbox/index.js';
const sb = await startSandbox({ seed: 'empty', dbPath: ':memory:', port: 47111 });
console.log(sb.url, sb.token);
setTimeout(() => sb.close(), 60000);
