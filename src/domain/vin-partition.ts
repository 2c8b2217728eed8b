/**
 * Which of `count` partitions a VIN belongs to: FNV-1a (32 bit) of its characters, modulo the
 * count. The ingest queue's streams and the trip workers' shards both use it, so the answer must
 * be the same in every process and every version: never change the function, only the count.
 */
export function vinPartition(vin: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < vin.length; i++) {
    hash ^= vin.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}
