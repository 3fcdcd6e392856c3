// Breaks: awaiting something that is not a promise (await-thenable).
export async function f(): Promise<number> {
  const n = 1;
  return await n;
}
