/* SPDX-License-Identifier: MIT */
/*
 * A program of LULESH's shape, for the cost of counting every function
 * (-finstrument-functions, docs/paths.md): a hexahedral mesh advanced in
 * time steps, each a nodal phase (forces from each element's stress and
 * hourglass terms, then each node's acceleration, velocity and position),
 * an element phase (kinematics, artificial viscosity, the equation of
 * state) and the time constraints, in LULESH's call tree: a few functions
 * per step, a dozen small ones per element and per node, called millions of
 * times. It uses nothing of libpmu: bench/functions.sh builds it plain and
 * with -finstrument-functions, and runs it with and without the library.
 *   usage: hydro [EDGE [STEPS]]   (default 20 elements an edge, 30 steps)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

struct mesh {
	int nx, nelem, nnode;
	int *nodes;		/* 8 per element */
	double *x, *y, *z, *xd, *yd, *zd, *fx, *fy, *fz, *mass;
	double *e, *p, *q, *v, *vdov, *ss, *arealg;
	double dt;
};

static double *zeros(int n)
{
	double *a = calloc((size_t)n, sizeof(*a));

	if (!a) {
		perror("hydro");
		exit(1);
	}
	return a;
}

static void mesh_make(struct mesh *m, int nx)
{
	int n1 = nx + 1, k = 0;

	m->nx = nx;
	m->nelem = nx * nx * nx;
	m->nnode = n1 * n1 * n1;
	m->nodes = malloc(8 * sizeof(int) * (size_t)m->nelem);
	if (!m->nodes)
		exit(1);
	double **f[] = { &m->x, &m->y, &m->z, &m->xd, &m->yd, &m->zd, &m->fx, &m->fy, &m->fz, &m->mass };
	for (unsigned i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		*f[i] = zeros(m->nnode);
	double **g[] = { &m->e, &m->p, &m->q, &m->v, &m->vdov, &m->ss, &m->arealg };
	for (unsigned i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		*g[i] = zeros(m->nelem);
	for (int a = 0; a < n1; a++)
		for (int b = 0; b < n1; b++)
			for (int c = 0; c < n1; c++, k++) {
				m->x[k] = 1.125 * c / nx;
				m->y[k] = 1.125 * b / nx;
				m->z[k] = 1.125 * a / nx;
				m->mass[k] = 1.0;
			}
	k = 0;
	for (int a = 0; a < nx; a++)
		for (int b = 0; b < nx; b++)
			for (int c = 0; c < nx; c++, k++) {
				int n0 = a * n1 * n1 + b * n1 + c, *nl = &m->nodes[8 * k];

				nl[0] = n0, nl[1] = n0 + 1, nl[2] = n0 + n1 + 1, nl[3] = n0 + n1;
				for (int i = 0; i < 4; i++)
					nl[4 + i] = nl[i] + n1 * n1;
				m->e[k] = k ? 0.0 : 3.948746e+7;	/* LULESH's blast in one corner */
				m->v[k] = 1.0;
			}
	m->dt = 1e-7;
}

NOINLINE static void collect_nodes(const struct mesh *m, int e, double *xs, double *ys, double *zs)
{
	for (int i = 0; i < 8; i++) {
		int n = m->nodes[8 * e + i];

		xs[i] = m->x[n], ys[i] = m->y[n], zs[i] = m->z[n];
	}
}

NOINLINE static double shape_derivatives(const double *xs, const double *ys, const double *zs, double b[3][8])
{
	double fjx = .125 * (xs[6] - xs[0] + xs[5] - xs[3] - xs[7] + xs[1] - xs[2] + xs[4]);
	double fjy = .125 * (ys[6] - ys[0] + ys[5] - ys[3] - ys[7] + ys[1] - ys[2] + ys[4]);
	double fjz = .125 * (zs[6] - zs[0] + zs[5] - zs[3] - zs[7] + zs[1] - zs[2] + zs[4]);

	for (int i = 0; i < 8; i++) {
		double s = (i & 1 ? 1 : -1) * (i & 2 ? 1 : -1);

		b[0][i] = s * (fjy * zs[i] - fjz * ys[i]);
		b[1][i] = s * (fjz * xs[i] - fjx * zs[i]);
		b[2][i] = s * (fjx * ys[i] - fjy * xs[i]);
	}
	return 8.0 * (fjx * fjy + fjy * fjz + fjz * fjx) + 1e-12;
}

NOINLINE static void sum_stress(const struct mesh *m, int e, double sig, double b[3][8])
{
	for (int i = 0; i < 8; i++) {
		int n = m->nodes[8 * e + i];

		m->fx[n] -= sig * b[0][i], m->fy[n] -= sig * b[1][i], m->fz[n] -= sig * b[2][i];
	}
}

NOINLINE static void integrate_stress(struct mesh *m)
{
	double xs[8], ys[8], zs[8], b[3][8];

	for (int e = 0; e < m->nelem; e++) {
		collect_nodes(m, e, xs, ys, zs);
		shape_derivatives(xs, ys, zs, b);
		sum_stress(m, e, -(m->p[e] + m->q[e]), b);
	}
}

/* LULESH's hourglass control of an element: its four modes from the nodes' positions and velocities. */
NOINLINE static void hourglass_elem(struct mesh *m, int e, const double *xs, const double *ys, const double *zs,
				   const double *xd, const double *yd, const double *zd)
{
	static const double gamma[4][8] = { { 1, 1, -1, -1, -1, -1, 1, 1 }, { 1, -1, -1, 1, -1, 1, 1, -1 },
					    { 1, -1, 1, -1, 1, -1, 1, -1 }, { -1, 1, -1, 1, 1, -1, 1, -1 } };
	double hg[8][4], vol = fmax(m->v[e], 1e-3), coef = -0.01 * m->ss[e] / vol;

	for (int i = 0; i < 4; i++) {
		double hx = 0, hy = 0, hz = 0;

		for (int j = 0; j < 8; j++)
			hx += xs[j] * gamma[i][j], hy += ys[j] * gamma[i][j], hz += zs[j] * gamma[i][j];
		for (int j = 0; j < 8; j++)
			hg[j][i] = gamma[i][j] - (hx * xs[j] + hy * ys[j] + hz * zs[j]) / (8 * vol);
	}
	for (int i = 0; i < 4; i++) {
		double hvx = 0, hvy = 0, hvz = 0;

		for (int j = 0; j < 8; j++)
			hvx += hg[j][i] * xd[j], hvy += hg[j][i] * yd[j], hvz += hg[j][i] * zd[j];
		for (int j = 0; j < 8; j++) {
			int n = m->nodes[8 * e + j];

			m->fx[n] += coef * hg[j][i] * hvx, m->fy[n] += coef * hg[j][i] * hvy;
			m->fz[n] += coef * hg[j][i] * hvz;
		}
	}
}

NOINLINE static void hourglass(struct mesh *m)
{
	double xs[8], ys[8], zs[8], xd[8], yd[8], zd[8];

	for (int e = 0; e < m->nelem; e++) {
		collect_nodes(m, e, xs, ys, zs);
		for (int i = 0; i < 8; i++) {
			int n = m->nodes[8 * e + i];

			xd[i] = m->xd[n], yd[i] = m->yd[n], zd[i] = m->zd[n];
		}
		hourglass_elem(m, e, xs, ys, zs, xd, yd, zd);
	}
}

NOINLINE static void calc_force(struct mesh *m)
{
	for (int n = 0; n < m->nnode; n++)
		m->fx[n] = m->fy[n] = m->fz[n] = 0;
	integrate_stress(m);
	hourglass(m);
}

/* The node's acceleration, velocity and position: a small function a node, as LULESH's loops. */
NOINLINE static void advance_node(struct mesh *m, int n)
{
	double ax = m->fx[n] / m->mass[n], ay = m->fy[n] / m->mass[n], az = m->fz[n] / m->mass[n];

	m->xd[n] += ax * m->dt, m->yd[n] += ay * m->dt, m->zd[n] += az * m->dt;
	m->x[n] += m->xd[n] * m->dt, m->y[n] += m->yd[n] * m->dt, m->z[n] += m->zd[n] * m->dt;
}

NOINLINE static void lagrange_nodal(struct mesh *m)
{
	calc_force(m);
	for (int n = 0; n < m->nnode; n++)
		advance_node(m, n);
}

/* An element's volume, as LULESH's: triple products over its twelve edges. */
NOINLINE static double elem_volume(const double *xs, const double *ys, const double *zs)
{
	static const int q[3][4] = { { 1, 2, 6, 5 }, { 3, 2, 6, 7 }, { 4, 5, 6, 7 } };
	double v = 0;

	for (int k = 0; k < 3; k++) {
		const int *f = q[k];
		double ax = xs[f[0]] - xs[0] + xs[f[1]] - xs[3], ay = ys[f[0]] - ys[0] + ys[f[1]] - ys[3];
		double az = zs[f[0]] - zs[0] + zs[f[1]] - zs[3], bx = xs[f[2]] - xs[4] + xs[f[3]] - xs[1];
		double by = ys[f[2]] - ys[4] + ys[f[3]] - ys[1], bz = zs[f[2]] - zs[4] + zs[f[3]] - zs[1];
		double cx = xs[6] - xs[f[k]], cy = ys[6] - ys[f[k]], cz = zs[6] - zs[f[k]];

		v += ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
	}
	return fabs(v) / 12.0 + 1e-12;
}

/* The element's characteristic length: its volume over its largest face's area, the six faces'. */
NOINLINE static double char_length(const double *xs, const double *ys, const double *zs, double vol)
{
	static const int face[6][4] = { { 0, 1, 2, 3 }, { 4, 5, 6, 7 }, { 0, 1, 5, 4 },
					{ 1, 2, 6, 5 }, { 2, 3, 7, 6 }, { 3, 0, 4, 7 } };
	double a = 0;

	for (int i = 0; i < 6; i++) {
		const int *f = face[i];
		double fx = xs[f[2]] - xs[f[0]] - xs[f[3]] + xs[f[1]], fy = ys[f[2]] - ys[f[0]] - ys[f[3]] + ys[f[1]];
		double fz = zs[f[2]] - zs[f[0]] - zs[f[3]] + zs[f[1]], gx = xs[f[2]] - xs[f[0]] + xs[f[3]] - xs[f[1]];
		double gy = ys[f[2]] - ys[f[0]] + ys[f[3]] - ys[f[1]], gz = zs[f[2]] - zs[f[0]] + zs[f[3]] - zs[f[1]];
		double area = (fx * fx + fy * fy + fz * fz) * (gx * gx + gy * gy + gz * gz) -
			      (fx * gx + fy * gy + fz * gz) * (fx * gx + fy * gy + fz * gz);

		a = fmax(a, area);
	}
	return 4.0 * vol / sqrt(a + 1e-30);
}

NOINLINE static double velocity_gradient(const struct mesh *m, int e)
{
	double d = 0;

	for (int i = 0; i < 8; i++) {
		int n = m->nodes[8 * e + i];

		d += (i & 1 ? 1 : -1) * (m->xd[n] + m->yd[n] + m->zd[n]);
	}
	return d * 0.25;
}

NOINLINE static void calc_kinematics(struct mesh *m)
{
	double xs[8], ys[8], zs[8];

	for (int e = 0; e < m->nelem; e++) {
		double vol;

		collect_nodes(m, e, xs, ys, zs);
		vol = elem_volume(xs, ys, zs);
		m->arealg[e] = char_length(xs, ys, zs, vol);
		m->vdov[e] = velocity_gradient(m, e);
		m->v[e] = fmax(0.1, fmin(10.0, m->v[e] * (1 + m->vdov[e] * m->dt)));
	}
}

NOINLINE static void monoq_elem(struct mesh *m, int e)
{
	double dv = m->vdov[e];

	m->q[e] = dv < 0 ? 2.0 * dv * dv * m->arealg[e] * m->arealg[e] + 0.5 * m->ss[e] * fabs(dv) : 0;
}

NOINLINE static void calc_q(struct mesh *m)
{
	for (int e = 0; e < m->nelem; e++)
		monoq_elem(m, e);
}

NOINLINE static double calc_pressure(double e, double v)
{
	return fmax(0, (2.0 / 3.0) * e / v);
}

NOINLINE static double calc_energy(double e, double p, double q, double dv)
{
	return fmax(0, e - 0.5 * dv * (p + q));
}

NOINLINE static double sound_speed(double p, double e, double v)
{
	return sqrt(fmax(1e-36, (p * v + e * (2.0 / 3.0)) / 1.0));
}

NOINLINE static void eval_eos(struct mesh *m)
{
	for (int e = 0; e < m->nelem; e++) {
		double dv = m->vdov[e] * m->dt;

		m->e[e] = calc_energy(m->e[e], m->p[e], m->q[e], dv);
		m->p[e] = calc_pressure(m->e[e], m->v[e]);
		m->ss[e] = sound_speed(m->p[e], m->e[e], m->v[e]);
	}
}

NOINLINE static void lagrange_elements(struct mesh *m)
{
	calc_kinematics(m);
	calc_q(m);
	eval_eos(m);
}

NOINLINE static double courant_elem(const struct mesh *m, int e)
{
	return m->arealg[e] / (m->ss[e] + 1e-20);
}

NOINLINE static void time_constraints(struct mesh *m)
{
	double dtc = 1e20;

	for (int e = 0; e < m->nelem; e++)
		dtc = fmin(dtc, courant_elem(m, e));
	m->dt = fmin(1e-6, fmax(1e-9, 0.5 * dtc));
}

int main(int argc, char **argv)
{
	int nx = argc > 1 ? atoi(argv[1]) : 20, steps = argc > 2 ? atoi(argv[2]) : 30;
	struct mesh m;
	double sum = 0;

	if (nx < 1 || nx > 200 || steps < 1) {
		fprintf(stderr, "usage: hydro [EDGE [STEPS]] (EDGE 1 to 200 elements, STEPS at least 1)\n");
		return 2;
	}
	mesh_make(&m, nx);
	for (int s = 0; s < steps; s++) {
		lagrange_nodal(&m);
		lagrange_elements(&m);
		time_constraints(&m);
	}
	for (int e = 0; e < m.nelem; e++)
		sum += m.e[e];
	printf("hydro: %d elements, %d steps, energy %.6e\n", m.nelem, steps, sum);
	return 0;
}
