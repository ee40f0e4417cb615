/* video.h - a video's frames converted on the GPU and copied to the host
 * without stalling the frame loop. No GL: the caller hands in the picture
 * as a CUDA array (app/interop/interop.c maps GL's picture for that, read
 * in place where it can be, else GL's copy of it).
 *
 * Each frame pushed is converted by a kernel to planar YUV 4:2:0 (BT.709,
 * limited range, top row first, the even part of the picture: the same
 * bytes as render/'s YUV420 read-back and shaders/yuv420.frag), then copied
 * by the copy engine into pinned host memory, both queued and returned at
 * once. A ring of VIDEO_DEPTH frames: pushed (converted and copied on the
 * GPU), mapped (the copy is done; the caller reads the bytes, on any
 * thread), released (the slot takes pushes again), in order.
 *
 * Stream order: the conversion runs on a blocking stream, so work the
 * caller then issues on the legacy default stream (a graphics unmap) waits
 * for it; the copy runs on a non-blocking stream after it, so nothing the
 * caller issues waits for the copy.
 */
#ifndef VIDEO_H
#define VIDEO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Frames in the ring: pushed and not yet released. */
#define VIDEO_DEPTH 4

typedef struct video_frames video_frames;

typedef struct video_error {
    char message[512]; /* every module's error has these sizes: one fits another */
    char hint[256];
} video_error;

struct cudaArray; /* cudaArray_t, without the CUDA headers */

typedef struct video_frames_desc {
    int width, height; /* the picture's: RGBA8, GL's bottom row first */
} video_frames_desc;

/* The converter, its device and pinned host buffers; NULL with *err (a
 * picture under 2x2, no CUDA device, out of memory). */
video_frames *video_frames_create(const video_frames_desc *desc, video_error *err);
/* Waits for the GPU's work on the frames, then frees them (mapped ones too). */
void video_frames_destroy(video_frames *v);
/* Frames pushed and not yet released, and of those the mapped ones. */
int video_frames_pending(const video_frames *v);
int video_frames_mapped(const video_frames *v);
/* Queues the conversion of the picture in rgba (a CUDA array of uchar4,
 * read by the GPU before work issued after this call on the legacy stream)
 * and the copy of the frame to the host; returns at once. Needs a free
 * slot (pending < VIDEO_DEPTH). false with *err when CUDA refuses. */
bool video_frames_push(video_frames *v, struct cudaArray *rgba, video_error *err);
/* Maps the oldest frame pushed and not mapped yet: *data its bytes, valid
 * until it is released; NULL when there is none or, without wait, when its
 * copy is not done. false with *err when CUDA reports an error. */
bool video_frames_map(video_frames *v, bool wait, const uint8_t **data, video_error *err);
/* The oldest mapped frame is done with; its slot takes pushes again. */
void video_frames_release(video_frames *v);

#ifdef __cplusplus
}
#endif

#endif
