// Breaks: an async function where a callback's result is ignored (no-misused-promises).
export function each(items: string[]): void {
  items.forEach(async (item) => {
    await Promise.resolve(item);
  });
}
