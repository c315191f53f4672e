/**
 * Turns a matched node into a `ScanSite`: its position as V8 reports it, the enclosing functions'
 * names, and the code around it (for display, and for matching across versions).
 */
import type { NodePath } from '@babel/traverse';
import type { Node } from '@babel/types';
import { lastAtMost } from '../sorted.js';
import { keyName } from './resolve.js';
import type { ScanSite } from './types.js';

const SNIPPET = 120;
// Characters of code, whitespace removed, kept on each side of the site for matching.
const CONTEXT_SIDE = 40;
const CONTEXT_SITE = 80;
// At most this many enclosing function names: a bundle nests every module in a function.
const FN_DEPTH = 4;

export class SourceText {
  readonly code: string;
  readonly file: string;
  private lineStarts: number[] | null = null;

  constructor(code: string, file: string) {
    this.code = code;
    this.file = file;
  }

  /** 1-based line and column of a character offset. */
  position(offset: number): { line: number; column: number } {
    const starts = (this.lineStarts ??= lineStarts(this.code));
    const line = lastAtMost(starts, offset);
    return { line: line + 1, column: offset - starts[line]! + 1 };
  }

  site(api: string, path: NodePath, at: number): ScanSite {
    const { line, column } = this.position(at);
    return {
      api,
      file: this.file,
      line,
      column,
      fn: enclosingFunctions(path, this.code),
      snippet: this.snippet(at),
      context: this.context(path),
    };
  }

  private snippet(at: number): string {
    let start = this.code.lastIndexOf('\n', at - 1) + 1;
    let end = this.code.indexOf('\n', at);
    if (end === -1) end = this.code.length;
    if (end - start <= SNIPPET) return this.code.slice(start, end).trim();
    start = Math.max(start, at - SNIPPET / 2);
    end = Math.min(end, start + SNIPPET);
    return `…${this.code.slice(start, end).trim()}…`;
  }

  /** The site's code and a little on each side within its statement, whitespace removed. */
  private context(path: NodePath): string {
    const node = path.node;
    const statement = path.getStatementParent()?.node ?? node;
    const squeeze = (from: number, to: number) => this.code.slice(from, to).replace(/\s+/g, '');
    const before = squeeze(Math.max(statement.start!, node.start! - 4 * CONTEXT_SIDE), node.start!).slice(
      -CONTEXT_SIDE,
    );
    const site = squeeze(node.start!, Math.min(node.end!, node.start! + 4 * CONTEXT_SITE)).slice(0, CONTEXT_SITE);
    const after = squeeze(node.end!, Math.min(statement.end!, node.end! + 4 * CONTEXT_SIDE)).slice(0, CONTEXT_SIDE);
    return `${before}⟨${site}⟩${after}`;
  }
}

function lineStarts(code: string): number[] {
  const starts = [0];
  for (let index = code.indexOf('\n'); index !== -1; index = code.indexOf('\n', index + 1)) starts.push(index + 1);
  return starts;
}

/** `Queue > push > <anonymous>`: the names of the functions around a path, outermost first. */
export function enclosingFunctions(path: NodePath, code: string): string | null {
  const names: string[] = [];
  for (let fn = path.getFunctionParent(); fn && names.length < FN_DEPTH; fn = fn.getFunctionParent())
    names.unshift(functionName(fn, code));
  return names.length === 0 ? null : names.join(' > ');
}

function functionName(fn: NodePath, code: string): string {
  const node = fn.node as Node & { id?: Node | null; key?: Node; computed?: boolean };
  if (node.id?.type === 'Identifier') return node.id.name;
  if (node.type === 'ObjectMethod' || node.type === 'ClassMethod' || node.type === 'ClassPrivateMethod') {
    const key =
      node.type === 'ClassPrivateMethod' ? `#${node.key.id.name}` : (keyName(node.key, node.computed) ?? '[computed]');
    const owner = node.type === 'ObjectMethod' ? null : className(fn.parentPath?.parentPath ?? null);
    return owner === null ? key : `${owner}.${key}`;
  }
  const parent = fn.parent;
  switch (parent.type) {
    case 'VariableDeclarator':
      return parent.id.type === 'Identifier' ? parent.id.name : '<anonymous>';
    case 'AssignmentExpression': // `Queue.prototype.push = function () {}`
      return code.slice(parent.left.start!, Math.min(parent.left.end!, parent.left.start! + 60)).replace(/\s+/g, '');
    case 'ObjectProperty':
      return keyName(parent.key, parent.computed) ?? '[computed]';
    case 'ClassProperty':
      return `${className(fn.parentPath?.parentPath?.parentPath ?? null) ?? '<class>'}.${keyName(parent.key, parent.computed) ?? '[computed]'}`;
    default:
      return '<anonymous>';
  }
}

function className(path: NodePath | null): string | null {
  const node = path?.node;
  if (!node || (node.type !== 'ClassDeclaration' && node.type !== 'ClassExpression')) return null;
  if (node.id) return node.id.name;
  const parent = path!.parent;
  return parent.type === 'VariableDeclarator' && parent.id.type === 'Identifier' ? parent.id.name : '<class>';
}
