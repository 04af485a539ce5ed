// The shapes the correctness suites run, each list named for what it covers. Several are chosen to land on a
// particular kernel, tile or split of K on an H100/H200; the comment of each says which rule of the plan
// (native/cuda/kernels/choose.h) it reaches, so a retuned rule shows which list to move.

export interface Case {
  m: number;
  k: number;
  n: number;
}

/** Shapes that are not tile multiples: ones, primes, vectors, tall, skinny, k=1. */
export const EDGE_SHAPES: Case[] = [
  { m: 1, k: 1, n: 1 },
  { m: 1, k: 1000, n: 1 },
  { m: 37, k: 1, n: 53 },
  { m: 1, k: 300, n: 211 },
  { m: 211, k: 300, n: 1 },
  { m: 97, k: 131, n: 61 },
  { m: 255, k: 257, n: 129 },
  { m: 1023, k: 17, n: 5 },
  { m: 3, k: 1021, n: 770 },
  { m: 16, k: 16, n: 16 },
  { m: 64, k: 64, n: 64 },
  // Inline-route products (A, B and C within 256 KiB) more than 64 columns wide, which read the bus in 64×128
  // tiles (native/cuda/kernels/choose.h, chooseBusVariant): cut at both edges, and whole.
  { m: 97, k: 61, n: 131 },
  { m: 128, k: 128, n: 128 },
];

export const LARGE_UNALIGNED_SHAPES: Case[] = [
  { m: 1000, k: 1000, n: 1000 },
  { m: 4095, k: 257, n: 1023 },
  { m: 17, k: 4099, n: 33 },
];

/**
 * Shapes for which the plan picks each of the mma kernel's block tiles on a GPU of up to 132 SMs
 * (native/kernels/choose.h): 128×128 (a grid of ≥ 1.5 blocks per SM), 128×64 (n ≤ 64), 64×128 (m ≤ 64);
 * small grids get 64×64, as most EDGE_SHAPES do (inline-route products over 64 wide read the bus in 64×128 tiles).
 */
export const MMA_BLOCK_TILE_SHAPES: Case[] = [
  { m: 2100, k: 67, n: 1999 },
  { m: 25345, k: 9, n: 37 },
  { m: 33, k: 9, n: 25601 },
];

/**
 * Products for which wgmma's fp32 mode takes its 64-row tiles (one consumer warpgroup) on an H100/H200
 * (kernels/choose.h, chooseVariant): 64×32 for a grid that 128-row tiles leave under one wave, 64×64 for few rows
 * and a wide B. Every edge cut.
 */
export const WGMMA_64_ROW_TILE_SHAPES: Case[] = [
  { m: 509, k: 301, n: 511 },
  { m: 47, k: 33, n: 20011 },
];

/** A product for which 'auto' in tf32 picks wgmma on an H100/H200 (kernels/choose.h, wgmmaPaysFor). */
export const AUTO_TAKES_WGMMA_SHAPE: Case = { m: 1100, k: 257, n: 1030 };

/**
 * Products whose grid on wgmma-t (the first and third) and wgmma (the second; 'auto' takes it in both precisions) is
 * under half an H100's SMs, with K deep enough that the plan splits it to fill them (kernels/choose.h,
 * chooseFillSlices). The third's K is past the kernels' slice depth (8192) too: 7 slices on wgmma-t, not the 2 long
 * K needs.
 */
export const K_SPLIT_TO_FILL_SHAPES: Case[] = [
  { m: 40, k: 2500, n: 3001 },
  { m: 300, k: 3000, n: 300 },
  { m: 3, k: 8193, n: 2049 },
];

/**
 * Products with few rows and a wide B, for which 'auto' picks wgmma-t on an H100/H200 (kernels/choose.h): the first
 * has more of its 64×192 tiles than an H100 has SMs, so blocks of the persistent grid take several; the second
 * takes its 64×128 tiles (a grid under one wave). Every edge cut.
 */
export const FEW_ROWS_WIDE_B_SHAPES: Case[] = [
  { m: 61, k: 300, n: 30011 },
  { m: 16, k: 300, n: 4099 },
];

/**
 * Products with enough 256×128 tiles, or slices of K over them, for more than half an H100's 132 SMs, for which
 * 'auto' in tf32 (and wgmma-t asked for) takes wgmma-t's 256×128 tile (kernels/choose.h, largeTilesPay): the first
 * is one tile per SM; the second has 10 tile rows (a group of 8 and one of 2, the order the tiles are walked in) and
 * 150 tiles, so some blocks take two; the third has 36 tiles and K (2049) split in two slices to fill the SMs; the
 * fourth has under 512 rows (4 tiles) and K past the slice depth (8192), split in 17 slices. Every edge cut.
 */
export const WGMMA_T_256_TILE_SHAPES: Case[] = [
  { m: 513, k: 300, n: 5505 },
  { m: 2305, k: 77, n: 1793 },
  { m: 513, k: 2049, n: 1409 },
  { m: 257, k: 17500, n: 129 },
];

/**
 * From 256 rows to 511 over more than half the SMs' worth of 256×128 tiles, 'auto' takes wgmma-t in tf32
 * (kernels/choose.h, autoKernel): 300×257×4500 on its 64×192 tiles, 500×257×4500 on its 256×128 (largeTilesPay).
 * Every edge cut.
 */
export const MID_ROWS_MANY_TILES_SHAPES: Case[] = [
  { m: 300, k: 257, n: 4500 },
  { m: 500, k: 257, n: 4501 },
];

/**
 * Products under 256 rows, for which 'auto' takes wgmma-t (tf32; fp32 where B has 1024 columns or more) or wgmma
 * (fp32, 64-row tiles) on an H100/H200, K split in slices from 256 deep to fill the SMs (kernels/choose.h,
 * wgmmaTransposedPaysFor, fillSlices): 100×3000×500 in 11 slices of 288 (tf32) and 4 of 768 (fp32); 1×2049×77 in 8,
 * the last 33 deep; 200×1100×1500 unsplit in tf32 (K under 2048) and in 2 in fp32; 37×2500×64, 64 columns on
 * wgmma-t's narrowest tile (64×128), 9 slices. Every edge cut.
 */
export const UNDER_256_ROW_SHAPES: Case[] = [
  { m: 100, k: 3000, n: 500 },
  { m: 1, k: 2049, n: 77 },
  { m: 200, k: 1100, n: 1500 },
  { m: 37, k: 2500, n: 64 },
];

/**
 * Step 6 (gemv: at most 16 rows or 16 columns; native/cuda/kernels/6_few_rows.cu): each of its variants (4, 8, 16
 * rows or columns) cut at every edge of its 256-wide blocks and 32-deep stages, k = 1, both tiny, and a long K in
 * slices summed in float64 (1×20000×3: 20 slices of 1024; 513×2049×16: 3).
 */
export const AT_MOST_16_ROWS_OR_COLUMNS_SHAPES: Case[] = [
  { m: 1, k: 1, n: 1 },
  { m: 1, k: 1000, n: 1 },
  { m: 1, k: 768, n: 1000 },
  { m: 5, k: 33, n: 1027 },
  { m: 16, k: 300, n: 513 },
  { m: 9, k: 1, n: 700 },
  { m: 1000, k: 257, n: 1 },
  { m: 4100, k: 64, n: 7 },
  { m: 17, k: 40, n: 16 },
  { m: 16, k: 40, n: 17 },
  { m: 3, k: 5000, n: 5 },
  { m: 1, k: 20000, n: 3 },
  { m: 513, k: 2049, n: 16 },
];

/**
 * Products under 64 columns with a long K, on mma (even on an H100/H200) with K split to fill the SMs
 * (kernels/choose.h, fillSlices): 3001×5003×1 in 2 slices of 47 blocks, 1×65537×7 in 129 slices of one block.
 */
export const NARROW_LONG_K_SHAPES: Case[] = [
  { m: 3001, k: 5003, n: 1 },
  { m: 1, k: 65537, n: 7 },
];

/**
 * Taller products with a long K and few columns, for which 'auto' in tf32 takes wgmma-t's 64×128 tiles on an
 * H100/H200 (one wave of them; kernels/choose.h, wgmmaTransposedPaysFor), K split in 2 to fill the SMs. Every edge cut.
 */
export const TALL_LONG_K_SHAPES: Case[] = [
  { m: 1500, k: 4100, n: 200 },
  { m: 3001, k: 4097, n: 65 },
];

/** Products the plan splits into several row panels on an H100-sized GPU (kernels/choose.h, choosePanelRows). */
export const ROW_PANEL_SHAPES: Case[] = [
  { m: 5000, k: 33, n: 2000 },
  { m: 9001, k: 7, n: 1003 },
];

/** Every shape the wgmma-t suites (wgmma-t-fp32.test.ts, wgmma-t-tf32.test.ts) run, in either precision. */
export const WGMMA_T_SUITE_SHAPES: Case[] = [...EDGE_SHAPES, ...LARGE_UNALIGNED_SHAPES, ...ROW_PANEL_SHAPES, ...FEW_ROWS_WIDE_B_SHAPES, ...K_SPLIT_TO_FILL_SHAPES, ...WGMMA_T_256_TILE_SHAPES];

/**
 * Empty products. The last two are planned like large ones (tf32 from 256 rows weighs 256×128 tiles split over K,
 * kernels/choose.h): planning the first of them divided by its zero tiles once (SIGFPE, the process gone).
 */
export const EMPTY_SHAPES: Case[] = [
  { m: 0, k: 5, n: 7 },
  { m: 5, k: 7, n: 0 },
  { m: 0, k: 0, n: 0 },
  { m: 6, k: 0, n: 4 },
  { m: 512, k: 5000, n: 0 },
  { m: 0, k: 5000, n: 512 },
];

export const shapeName = ({ m, k, n }: Case): string => `${m}×${k}×${n}`;
