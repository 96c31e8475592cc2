import { tsPlugin } from '@sveltejs/acorn-typescript';
import { Parser } from 'acorn';
import { type StaticValue, UNKNOWN } from './static-values.ts';

// The slice of ESTree read here; TypeScript nodes (`x as T`, `x satisfies T`, `x!`) wrap an expression.
interface Node {
  type: string;
  [field: string]: unknown;
}

const TypeScriptParser = Parser.extend(tsPlugin());

/**
 * Reads a JavaScript or TypeScript module (a site's configuration) and returns the value it
 * exports by default (`export default …` or `module.exports = …`), with whatever is not a
 * literal, or a constant defined from literals, as UNKNOWN. The program is parsed, never run:
 * a configuration may read the environment, the network or the disk. A function exported as the
 * configuration (`export default async function () { return {…} }`) gives its returned object.
 * Null when the module does not parse or exports nothing.
 */
export function readExportedValue(source: string): StaticValue | null {
  let program: Node;
  try {
    program = TypeScriptParser.parse(source, {
      ecmaVersion: 'latest',
      sourceType: 'module',
      locations: true, // the TypeScript plugin needs them
      allowHashBang: true,
      allowAwaitOutsideFunction: true,
      allowReturnOutsideFunction: true,
      allowImportExportEverywhere: true,
    }) as unknown as Node;
  } catch {
    return null;
  }
  const statements = (program.body as Node[]) ?? [];
  const constants = new Map<string, Node>();
  const functions = new Map<string, Node>();
  let exported: Node | null = null;
  for (const statement of statements) {
    const declaration =
      statement.type === 'ExportNamedDeclaration' ? (statement.declaration as Node | null) : statement;
    if (declaration?.type === 'VariableDeclaration') {
      for (const declarator of declaration.declarations as Node[]) {
        const id = declarator.id as Node;
        if (id.type === 'Identifier' && declarator.init)
          constants.set(id.name as string, declarator.init as Node);
      }
    } else if (declaration?.type === 'FunctionDeclaration' && (declaration.id as Node | null)) {
      functions.set((declaration.id as Node).name as string, declaration);
    }
    if (statement.type === 'ExportDefaultDeclaration') exported = statement.declaration as Node;
    const expression = statement.type === 'ExpressionStatement' ? (statement.expression as Node) : null;
    if (expression?.type === 'AssignmentExpression' && isModuleExports(expression.left as Node)) {
      exported = expression.right as Node;
    }
  }
  if (exported === null) return null;
  return new Evaluator(constants, functions).configuration(exported);
}

function isModuleExports(node: Node): boolean {
  return (
    node.type === 'MemberExpression' &&
    (node.object as Node).type === 'Identifier' &&
    (node.object as Node).name === 'module' &&
    (node.property as Node).type === 'Identifier' &&
    (node.property as Node).name === 'exports'
  );
}

const TYPE_WRAPPERS = new Set([
  'TSAsExpression',
  'TSSatisfiesExpression',
  'TSNonNullExpression',
  'TSTypeAssertion',
  'ParenthesizedExpression',
  'ChainExpression',
]);
const MAX_DEPTH = 64;

class Evaluator {
  private readonly resolving = new Set<string>();
  private readonly constants: Map<string, Node>;
  private readonly functions: Map<string, Node>;
  constructor(constants: Map<string, Node>, functions: Map<string, Node>) {
    this.constants = constants;
    this.functions = functions;
  }

  /** The exported value, or what the exported function returns. */
  configuration(node: Node): StaticValue {
    const bare = this.unwrap(node);
    if (bare.type === 'Identifier' && this.functions.has(bare.name as string)) {
      return this.returned(this.functions.get(bare.name as string) as Node);
    }
    if (bare.type === 'Identifier' && this.constants.has(bare.name as string)) {
      const init = this.unwrap(this.constants.get(bare.name as string) as Node);
      if (isFunction(init)) return this.returned(init);
    }
    if (isFunction(bare)) return this.returned(bare);
    return this.value(bare, 0);
  }

  private returned(fn: Node): StaticValue {
    const body = fn.body as Node;
    if (body.type !== 'BlockStatement') return this.value(body, 0);
    for (const statement of body.body as Node[]) {
      if (statement.type === 'VariableDeclaration') {
        // Constants of the function's own body, as the configuration is often built there.
        for (const declarator of statement.declarations as Node[]) {
          const id = declarator.id as Node;
          if (id.type === 'Identifier' && declarator.init) {
            this.constants.set(id.name as string, declarator.init as Node);
          }
        }
      }
      if (statement.type === 'ReturnStatement' && statement.argument) {
        return this.value(statement.argument as Node, 0);
      }
    }
    return UNKNOWN;
  }

  private unwrap(node: Node): Node {
    let current = node;
    while (TYPE_WRAPPERS.has(current.type)) current = current.expression as Node;
    return current;
  }

  value(node: Node, depth: number): StaticValue {
    if (depth > MAX_DEPTH) return UNKNOWN;
    const bare = this.unwrap(node);
    switch (bare.type) {
      case 'Literal': {
        const literal = bare.value;
        return typeof literal === 'string' ||
          typeof literal === 'number' ||
          typeof literal === 'boolean' ||
          literal === null
          ? literal
          : UNKNOWN;
      }
      case 'TemplateLiteral': {
        const quasis = bare.quasis as Node[];
        const expressions = bare.expressions as Node[];
        let text = (quasis[0]?.value as { cooked?: string } | undefined)?.cooked ?? '';
        for (const [i, expression] of expressions.entries()) {
          const part = this.value(expression, depth + 1);
          if (typeof part !== 'string' && typeof part !== 'number') return UNKNOWN;
          text += String(part) + ((quasis[i + 1]?.value as { cooked?: string } | undefined)?.cooked ?? '');
        }
        return text;
      }
      case 'Identifier':
        return this.identifier(bare.name as string, depth);
      case 'ArrayExpression': {
        const out: StaticValue[] = [];
        for (const element of bare.elements as (Node | null)[]) {
          if (element === null) out.push(undefined);
          else if (element.type === 'SpreadElement') {
            const spread = this.value(element.argument as Node, depth + 1);
            if (!Array.isArray(spread)) return UNKNOWN;
            out.push(...spread);
          } else out.push(this.value(element, depth + 1));
        }
        return out;
      }
      case 'ObjectExpression':
        return this.object(bare, depth);
      case 'UnaryExpression':
        if (bare.operator === 'void') return undefined;
        if (bare.operator === '!') {
          const operand = this.value(bare.argument as Node, depth + 1);
          return operand === UNKNOWN || typeof operand === 'object' ? UNKNOWN : !operand;
        }
        return UNKNOWN;
      default:
        return UNKNOWN;
    }
  }

  private identifier(name: string, depth: number): StaticValue {
    if (name === 'undefined') return undefined;
    const init = this.constants.get(name);
    if (init === undefined || this.resolving.has(name)) return UNKNOWN;
    this.resolving.add(name);
    try {
      return this.value(init, depth + 1);
    } finally {
      this.resolving.delete(name);
    }
  }

  private object(node: Node, depth: number): StaticValue {
    const out: { [key: string]: StaticValue } = {};
    for (const property of node.properties as Node[]) {
      if (property.type === 'SpreadElement') {
        const spread = this.value(property.argument as Node, depth + 1);
        // An unknown spread may set any key: what follows still wins, what came before may not.
        if (spread === UNKNOWN || spread === null || typeof spread !== 'object' || Array.isArray(spread)) {
          for (const key of Object.keys(out)) out[key] = UNKNOWN;
          continue;
        }
        Object.assign(out, spread);
        continue;
      }
      if (property.type !== 'Property') continue;
      const keyNode = property.key as Node;
      let key: StaticValue;
      if (property.computed) key = this.value(keyNode, depth + 1);
      else key = keyNode.type === 'Identifier' ? (keyNode.name as string) : (keyNode.value as StaticValue);
      if (typeof key !== 'string' && typeof key !== 'number') continue;
      const value = property.value as Node;
      out[String(key)] = isFunction(this.unwrap(value)) ? UNKNOWN : this.value(value, depth + 1);
    }
    return out;
  }
}

function isFunction(node: Node): boolean {
  return (
    node.type === 'ArrowFunctionExpression' ||
    node.type === 'FunctionExpression' ||
    node.type === 'FunctionDeclaration'
  );
}
