/*
 * su_fp: the floating-point environment Shale's own code computes in.
 *
 * What: round to nearest even, denormals kept as operands and results (no
 * flush-to-zero, no denormals-are-zero), every exception masked: on x86 the
 * MXCSR value 0x1f80 (its power-on value), elsewhere C's FE_DFL_ENV.
 *
 * Why: VK_KHR_shader_float_controls' denorm-preserve and RTE answers (and
 * plain IEEE 754 results) hold only in that environment, and threads inherit
 * their creator's. An application linked with -ffast-math (its crtfastmath
 * sets FTZ and DAZ before main) or one that called fesetround() would
 * otherwise flush or round every shader's arithmetic on the queue and pool
 * threads, and the SPIR-V optimizer's constant folding on the thread that
 * creates a pipeline.
 *
 * How: threads Shale creates that run shader code or compile it set the
 * environment once at their start (su_fp_set_default); entry points that
 * compile on an application's thread enter it and give the application's
 * own back before they return (su_fp_enter_default / su_fp_leave).
 *
 * Threading: the environment is per thread; these touch only the caller's.
 */
#ifndef SU_FP_H
#define SU_FP_H

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

#define SU_FP_MXCSR_DEFAULT 0x1f80u

typedef unsigned su_fp_env;

static inline su_fp_env
su_fp_enter_default(void)
{
   const su_fp_env saved = _mm_getcsr();
   _mm_setcsr(SU_FP_MXCSR_DEFAULT);
   return saved;
}

static inline void
su_fp_leave(su_fp_env saved)
{
   _mm_setcsr(saved);
}
#else
#include <fenv.h>

typedef fenv_t su_fp_env;

static inline su_fp_env
su_fp_enter_default(void)
{
   su_fp_env saved;
   fegetenv(&saved);
   fesetenv(FE_DFL_ENV);
   return saved;
}

static inline void
su_fp_leave(su_fp_env saved)
{
   fesetenv(&saved);
}
#endif

static inline void
su_fp_set_default(void)
{
   (void)su_fp_enter_default();
}

#endif /* SU_FP_H */
