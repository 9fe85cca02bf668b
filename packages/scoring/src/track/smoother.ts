/**
 * Constant-velocity Kalman filter with Rauch-Tung-Striebel smoothing on a uniform 1 s grid, for both
 * axes at once (they share the covariance because they share the timing and the noise model). Used to
 * derive speed and heading from positions when the receiver reports no Doppler speed.
 */
export interface SmootherInput {
  n: number;
  xM: Float64Array;
  yM: Float64Array;
  /** 1 where the position is a measurement; 0 where it is only bridged (a gap). */
  measured: Uint8Array;
  /** 1 where the filter restarts (after a break in the track). */
  reset: Uint8Array;
  /** White position noise, metres. */
  sigmaM: number;
  /** Acceleration noise spectral density, m^2/s^3: larger follows manoeuvres faster, smooths less. */
  q: number;
}

export interface SmootherOutput {
  xM: Float64Array;
  yM: Float64Array;
  vxMps: Float64Array;
  vyMps: Float64Array;
}

/** Smooths positions on a 1 s grid and returns smoothed positions and velocities. */
export function smoothTrack(input: SmootherInput): SmootherOutput {
  const { n, xM, yM, measured, reset, sigmaM, q } = input;
  const r = sigmaM * sigmaM;
  const q11 = q / 3;
  const q12 = q / 2;
  const q22 = q;
  // Predicted (p*) and filtered (f*) states and covariances [a b; b c].
  const pa = new Float64Array(n);
  const pb = new Float64Array(n);
  const pc = new Float64Array(n);
  const fa = new Float64Array(n);
  const fb = new Float64Array(n);
  const fc = new Float64Array(n);
  const px = new Float64Array(n);
  const pvx = new Float64Array(n);
  const py = new Float64Array(n);
  const pvy = new Float64Array(n);
  const fx = new Float64Array(n);
  const fvx = new Float64Array(n);
  const fy = new Float64Array(n);
  const fvy = new Float64Array(n);
  const big = 1e8;
  let a = big;
  let b = 0;
  let c = big;
  let sx = 0;
  let svx = 0;
  let sy = 0;
  let svy = 0;
  let started = false;
  for (let i = 0; i < n; i++) {
    if (!started || reset[i]) {
      // (Re)start at the next measurement with a vague velocity.
      a = big;
      b = 0;
      c = big;
      sx = xM[i]!;
      sy = yM[i]!;
      svx = 0;
      svy = 0;
      started = true;
    } else {
      // Predict one second ahead: x' = F x, P' = F P F^T + Q with F = [1 1; 0 1].
      sx += svx;
      sy += svy;
      const na = a + 2 * b + c + q11;
      const nb = b + c + q12;
      const nc = c + q22;
      a = na;
      b = nb;
      c = nc;
    }
    pa[i] = a;
    pb[i] = b;
    pc[i] = c;
    px[i] = sx;
    pvx[i] = svx;
    py[i] = sy;
    pvy[i] = svy;
    if (measured[i]) {
      const s = a + r;
      const k1 = a / s;
      const k2 = b / s;
      const ex = xM[i]! - sx;
      const ey = yM[i]! - sy;
      sx += k1 * ex;
      svx += k2 * ex;
      sy += k1 * ey;
      svy += k2 * ey;
      const na = (1 - k1) * a;
      const nb = (1 - k1) * b;
      const nc = c - k2 * b;
      a = na;
      b = nb;
      c = nc;
    }
    fa[i] = a;
    fb[i] = b;
    fc[i] = c;
    fx[i] = sx;
    fvx[i] = svx;
    fy[i] = sy;
    fvy[i] = svy;
  }
  const out: SmootherOutput = {
    xM: new Float64Array(n),
    yM: new Float64Array(n),
    vxMps: new Float64Array(n),
    vyMps: new Float64Array(n),
  };
  if (n === 0) return out;
  out.xM[n - 1] = fx[n - 1]!;
  out.yM[n - 1] = fy[n - 1]!;
  out.vxMps[n - 1] = fvx[n - 1]!;
  out.vyMps[n - 1] = fvy[n - 1]!;
  for (let i = n - 2; i >= 0; i--) {
    if (reset[i + 1]) {
      out.xM[i] = fx[i]!;
      out.yM[i] = fy[i]!;
      out.vxMps[i] = fvx[i]!;
      out.vyMps[i] = fvy[i]!;
      continue;
    }
    // Gain C = Pf F^T Pp(i+1)^-1.
    const A = fa[i]!;
    const B = fb[i]!;
    const Cc = fc[i]!;
    // Pf F^T = [A+B B; B+Cc Cc]
    const m11 = A + B;
    const m12 = B;
    const m21 = B + Cc;
    const m22 = Cc;
    const p11 = pa[i + 1]!;
    const p12 = pb[i + 1]!;
    const p22 = pc[i + 1]!;
    const det = p11 * p22 - p12 * p12;
    const i11 = p22 / det;
    const i12 = -p12 / det;
    const i22 = p11 / det;
    const g11 = m11 * i11 + m12 * i12;
    const g12 = m11 * i12 + m12 * i22;
    const g21 = m21 * i11 + m22 * i12;
    const g22 = m21 * i12 + m22 * i22;
    const dx = out.xM[i + 1]! - px[i + 1]!;
    const dvx = out.vxMps[i + 1]! - pvx[i + 1]!;
    const dy = out.yM[i + 1]! - py[i + 1]!;
    const dvy = out.vyMps[i + 1]! - pvy[i + 1]!;
    out.xM[i] = fx[i]! + g11 * dx + g12 * dvx;
    out.vxMps[i] = fvx[i]! + g21 * dx + g22 * dvx;
    out.yM[i] = fy[i]! + g11 * dy + g12 * dvy;
    out.vyMps[i] = fvy[i]! + g21 * dy + g22 * dvy;
  }
  return out;
}
