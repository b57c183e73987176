/*
 * core/rope_qscale.c -- a query scale by position (see rope_qscale.h). The floor is an integer
 * division of non-negative integers, exact as torch.floor of the float division for the
 * positions HF uses (below 2^53).
 */
#include "core/rope_qscale.h"

#include <math.h>

double pe_qscale_llama4_beta(int64_t pos, double beta, int64_t l0)
{
    return 1.0 + beta * log(1.0 + (double)(pos / l0));
}

double pe_qscale_llama4_temp(int64_t pos, double attn_scale, double floor_scale)
{
    return log1p(floor(((double)pos + 1.0) / floor_scale)) * attn_scale + 1.0;
}
