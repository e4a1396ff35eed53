/** Parsers for command-line values; failures are usage errors (exit code 2). */
import { InvalidArgumentError } from 'commander';

/** A TCP port 0–65535. */
export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`expected a port from 0 to 65535, got "${value}"`);
  return n;
}

/** A positive integer. */
export function parsePositive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a whole number from 1 up, got "${value}"`);
  return n;
}

/** Comma-separated dead-letter ids. */
export function parseIds(value: string, previous: number[] = []): number[] {
  const ids = value.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (ids.length === 0 || ids.some((n) => !Number.isInteger(n) || n < 1)) throw new InvalidArgumentError(`expected dead-letter ids like 3 or 3,4,9, got "${value}"`);
  return [...previous, ...ids];
}
