/**
 * Shop variables in a mapping file: `${shop.priceColumn}` in any value is the pipeline's shop's
 * variable (its `vars:` in shopsync.yaml or its shop file; `${shop.name}` is the shop's name), so one
 * mapping file serves every shop. A value that is one whole reference takes the variable as it is
 * (a number, a map of categories for `tables:`); inside text it is written as text.
 */
import { MappingError } from '../errors.js';
import { problem } from './problems.js';
import type { YamlSource } from './yaml.js';

const WHOLE = /^\$\{shop\.([A-Za-z][A-Za-z0-9_]*)\}$/;
const REF = /\$\{shop\.([A-Za-z][A-Za-z0-9_]*)\}/g;

/** The source with its shop variables filled in, whether the file used any, and a problem per unknown variable. */
export function fillShopVariables(src: YamlSource, vars: Readonly<Record<string, unknown>> | undefined): { src: YamlSource; used: boolean; problems: MappingError[] } {
  const problems: MappingError[] = [];
  let used = false;
  const walk = (value: unknown, path: (string | number)[]): unknown => {
    if (typeof value === 'string') {
      if (!value.includes('${shop.')) return value;
      used = true;
      // Without variables (a check of the file alone) the references stay as written.
      if (vars === undefined) return value;
      const missing = (name: string) => {
        const known = Object.keys(vars).map((k) => `\${shop.${k}}`).join(', ');
        problems.push(problem(src, 'MAPPING_VAR', `\`\${shop.${name}}\`: the pipeline's shop has no variable \`${name}\`; add it under the shop's \`vars:\` (known: ${known || 'none'})`, path));
      };
      const whole = WHOLE.exec(value);
      if (whole) {
        if (vars[whole[1]!] === undefined) missing(whole[1]!);
        return vars[whole[1]!];
      }
      return value.replace(REF, (m, name: string) => {
        const v = vars[name];
        if (v === undefined) {
          missing(name);
          return m;
        }
        return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
      });
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, [...path, i]));
    // A key may hold a variable too: `languages.${shop.language}.products_name`.
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.includes('${shop.') ? String(walk(k, [...path, k])) : k, walk(v, [...path, k])]));
    return value;
  };
  const data = walk(src.data, []);
  return { src: { ...src, data, locate: src.locate }, used, problems };
}
