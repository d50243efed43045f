export function area(w: number, h: number): number {
  return w * h;
}
