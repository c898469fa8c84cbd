/*
 * bench_soma — posing a 150-joint SOMA skeleton with twist helpers, per
 * frame: the rest stance, one clip sampled (every joint animated, 60
 * frames), the twist rule, worlds and skin matrices.  Beside it, from the
 * same run: clip sampling alone, the poser alone, and memcpy of the bytes
 * the poser writes per pose (worlds + skin matrices, 19.2 KB, cache-resident
 * like the poser's output), POSES times: the yardstick.
 *
 *     build/release/bench_soma
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <marionette/character/soma.h>

enum { JOINTS = 150, FRAMES = 60, POSES = 2000, RUNS = 15 };

/* A body-like tree: a spine of 10, then chains of 10 joints hanging off it;
   every chain's first joint is the bone of a twist segment with two helpers. */
static char *build_skeleton(void)
{
    char *json = malloc(1 << 20), *p = json;
    p += sprintf(p, "{\"format\":\"aosrig-v2-skeleton\",\"groundOffset\":0.02,\"hips\":\"j0\",\"joints\":[");
    int parent[JOINTS];
    int twists = 0;
    char twist[1 << 14], *t = twist;
    for (int j = 0; j < JOINTS; j++) {
        int chain_pos = j < 10 ? j : (j - 10) % 10;
        int helper = j >= 10 && (chain_pos == 8 || chain_pos == 9);
        parent[j] = j == 0 ? -1 : j < 10 ? j - 1 : chain_pos == 0 ? (j / 10) % 10 : helper ? j - chain_pos : j - 1;
        p += sprintf(p, "%s{\"name\":\"j%d\",\"parent\":%d,\"localPosition\":[%g,%g,0],"
                        "\"localRotation\":[0,0,0.0998334,0.9950042],\"baseLocalRotation\":%s,"
                        "\"inverseBind\":[1,0,0,0,0,1,0,0,0,0,1,0,0,%g,0,1]}",
                     j ? "," : "", j, parent[j], j < 10 ? 0.0 : 0.1, j < 10 ? 0.1 : 0.0,
                     helper ? "[0,0,0,1]" : "null", -0.1 * j);
        if (j >= 10 && chain_pos == 9)
            t += sprintf(t, "%s{\"bone\":\"j%d\",\"child\":\"j%d\",\"helpers\":[{\"joint\":\"j%d\","
                            "\"fraction\":0.33},{\"joint\":\"j%d\",\"fraction\":0.66}]}",
                         twists++ ? "," : "", j - 9, j - 8, j - 1, j);
    }
    sprintf(p, "],\"twist\":[%s]}", twist);
    return json;
}

static char *build_clip(void)
{
    char *json = malloc(1 << 22), *p = json;
    p += sprintf(p, "{\"format\":\"soma-clips\",\"clips\":[{\"name\":\"all\",\"fps\":30,\"frames\":%d,"
                    "\"bones\":{", FRAMES);
    for (int j = 0; j < JOINTS; j++) {
        p += sprintf(p, "%s\"j%d\":[", j ? "," : "", j);
        for (int f = 0; f < FRAMES; f++) {
            double a = 0.02 * (f + j);
            p += sprintf(p, "%s%.6f,%.6f,%.6f,%.6f", f ? "," : "", sin(a) * 0.3, sin(a) * 0.2,
                         sin(a) * 0.1, cos(a));
        }
        *p++ = ']';
    }
    p += sprintf(p, "},\"root\":[");
    for (int f = 0; f < FRAMES; f++)
        p += sprintf(p, "%s%g,1,0", f ? "," : "", 0.05 * f);
    sprintf(p, "]}]}");
    return json;
}

typedef struct ctx {
    const mn_soma_skeleton *sk;
    const mn_clip *clip;
    mn_pose pose;
    float *worlds, *skin;   /* one block: worlds then skin */
    float *copy;
    float sink;
} ctx;

static bool frame_all(void *p)
{
    ctx *c = p;
    for (int i = 0; i < POSES; i++) {
        mn_soma_rest_pose(c->sk, &c->pose);
        mn_clip_sample(c->clip, (float)i * (1.0f / 997), &c->pose, NULL);
        mn_soma_pose(c->sk, &c->pose, c->worlds, c->skin);
        c->sink += c->skin[16 * (JOINTS - 1) + 12];
    }
    return true;
}

static bool sample_only(void *p)
{
    ctx *c = p;
    for (int i = 0; i < POSES; i++) {
        mn_clip_sample(c->clip, (float)i * (1.0f / 997), &c->pose, NULL);
        c->sink += c->pose.rotations[4 * (JOINTS - 1)];
    }
    return true;
}

static bool pose_only(void *p)
{
    ctx *c = p;
    for (int i = 0; i < POSES; i++) {
        mn_soma_pose(c->sk, &c->pose, c->worlds, c->skin);
        c->sink += c->skin[16 * (JOINTS - 1) + 12];
    }
    return true;
}

/* The yardstick: copy one pose's output (worlds and skin) POSES times. */
static bool copy_pose_bytes(void *p)
{
    ctx *c = p;
    for (int i = 0; i < POSES; i++) {
        memcpy(c->copy, c->worlds, 2 * JOINTS * 16 * sizeof(float));
        /* A dependent store so the compiler cannot hoist the copy out of the loop. */
        c->worlds[i % (2 * JOINTS * 16)] += c->copy[(i * 7) % (2 * JOINTS * 16)] * 0.0f;
    }
    c->sink += c->copy[5];
    return true;
}

static void report(const char *name, bench_timing t, bench_timing copy, size_t bytes)
{
    bench_line line;
    bench_line_begin(&line, "soma", name);
    bench_line_u64(&line, "joints", JOINTS);
    bench_line_u64(&line, "poses", POSES);
    bench_line_num(&line, "ms", t.best_ms);
    bench_line_num(&line, "median_ms", t.median_ms);
    bench_line_i64(&line, "runs", t.runs);
    bench_line_num(&line, "ns_per_pose", t.best_ms * 1e6 / POSES);
    bench_line_num(&line, "ns_per_joint", t.best_ms * 1e6 / ((double)POSES * JOINTS));
    bench_line_num(&line, "memcpy_ms_same_bytes", copy.best_ms);
    bench_line_num(&line, "memcpy_gbps", bench_gbps(bytes, copy.best_ms));
    bench_line_num(&line, "ratio_to_memcpy", t.best_ms / copy.best_ms);
    bench_line_print(&line);
}

int main(void)
{
    char *skj = build_skeleton(), *clj = build_clip();
    mn_soma_skeleton *sk = NULL;
    mn_soma_clips *clips = NULL;
    mn_error err;
    if (mn_soma_skeleton_read(skj, strlen(skj), NULL, 0, NULL, &sk, &err) != MN_OK ||
        mn_soma_clips_read(clj, strlen(clj), sk, NULL, &clips, &err) != MN_OK ||
        clips->clip_count != 1 || sk->twist_count != 14) {
        fprintf(stderr, "bench_soma: set-up failed: %s\n", err.message);
        return 1;
    }
    ctx c = {.sk = sk, .clip = clips->clips[0].clip};
    if (mn_pose_create(&c.pose, JOINTS, NULL, &err) != MN_OK)
        return 1;
    c.worlds = calloc(2 * JOINTS * 16, sizeof(float));
    c.copy = calloc(2 * JOINTS * 16, sizeof(float));
    if (!c.worlds || !c.copy)
        return 1;
    c.skin = c.worlds + JOINTS * 16;
    mn_soma_rest_pose(sk, &c.pose);
    size_t bytes = (size_t)POSES * JOINTS * 2 * 16 * sizeof(float);
    bench_timing copy = bench_run(RUNS, copy_pose_bytes, NULL, &c);
    report("frame_sample_twist_skin", bench_run(RUNS, frame_all, NULL, &c), copy, bytes);
    report("clip_sample", bench_run(RUNS, sample_only, NULL, &c), copy, bytes);
    report("poser_twist_skin", bench_run(RUNS, pose_only, NULL, &c), copy, bytes);
    if (c.sink == 12345.678f)
        fputc('\0', stderr);
    free(c.worlds);
    free(c.copy);
    mn_pose_free(&c.pose);
    mn_soma_clips_free(clips);
    mn_soma_skeleton_free(sk);
    free(skj);
    free(clj);
    return 0;
}
