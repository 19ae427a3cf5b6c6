/**
 * Minimal typings for `mvdan-sh`: mvdan/sh (the Go shell parser behind shfmt) compiled to
 * JavaScript. Only what the shell policy reads is declared; nodes are walked generically.
 */
declare module 'mvdan-sh' {
  /** A syntax-tree node; its concrete type comes from `syntax.NodeType`. */
  export interface ShNode {
    Pos(): { Offset(): number };
    End(): { Offset(): number };
    readonly [field: string]: unknown;
  }

  /** The parser returned by `syntax.NewParser()`. */
  export interface ShParser {
    Parse(source: string, name: string): ShNode;
  }

  /** The `syntax` namespace of mvdan/sh. */
  export interface ShSyntax {
    NewParser(...options: unknown[]): ShParser;
    NodeType(node: ShNode): string;
    Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
    LangBash: unknown;
    Variant(language: unknown): unknown;
  }

  const sh: { syntax: ShSyntax };
  export default sh;
}
