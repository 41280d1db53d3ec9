import postgres from "postgres";
const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
await sql.begin("isolation level repeatable read read only", async (tx) => {
  const stream = await tx.unsafe(`copy zz_big to stdout`).readable();
  let n = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) { n += chunk.length; console.log("chunk", chunk.length); }
  console.log("done", n);
});
await sql.end();
