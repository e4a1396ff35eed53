/** Filling the registry's path templates (`{id}`, `{start}:{end}`). */
import { ValidationError } from '../errors.js';

/** Replace every `{name}` of a registry path with its URL-encoded value; a missing value is an error. */
export function fillPath(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined || value === '') throw new ValidationError('INVALID_ARGUMENT', `The path ${template} needs a value for {${name}}`);
    return encodeURIComponent(String(value));
  });
}

/** The placeholder names of a registry path template. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}
