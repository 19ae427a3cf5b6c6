// Questions about a node of a sim screen.
import type { SimNode } from './device-model.js';

/** Whether the point (x, y) lies inside `bounds` (left and top inclusive). */
export function contains(
  bounds: readonly [number, number, number, number],
  x: number,
  y: number,
): boolean {
  const [left, top, right, bottom] = bounds;
  return x >= left && x < right && y >= top && y < bottom;
}

/** Whether a node takes text input. */
export function isEditable(node: SimNode): boolean {
  return node.className === 'android.widget.EditText' || node.className.endsWith('.EditText');
}
