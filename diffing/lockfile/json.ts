import { jsonSyntaxError } from '../json-position.js';
import { refuse } from './errors.js';

/** JSON.parse, and when it fails, a coded error at the line and column of the first mistake. */
export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const { line, column, reason } = jsonSyntaxError(text);
    return refuse(file, { line, column }, `not valid JSON: ${reason}`);
  }
}
