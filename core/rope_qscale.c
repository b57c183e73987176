/*
 * core/rope_qscale.c -- query scales by position (see rope_qscale.h). The floors are integer
 * divisions of non-negative integers, exact as torch.floor of the float division for the
 * positions HF uses (below 2^53).
 */
#include "core/rope_qscale.h"

#include <math.h>

double pe_qscale_llama4_beta(int64_t pos, double beta, int64_t l0)
{
    return 1.0 + beta * log(1.0 + (double)(pos / l0));
}

double pe_qscale_llama4_temperature(int64_t pos, double attn_scale, int64_t floor_scale)
{
    return 1.0 + attn_scale * log(1.0 + (double)((pos + 1) / floor_scale));
}
