// Breaks: a promise is neither awaited, returned nor voided (no-floating-promises).
async function save(): Promise<void> {}
export function onChange(): void {
  save();
}
