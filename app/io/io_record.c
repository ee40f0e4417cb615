/* io_record.c - videos (--record FILE.mp4, key M) and PNG sequences
 * (--frames-dir DIR) of the frames drawn.
 *
 * Recording is tied to simulation frames, not to the wall clock: every
 * frame drawn is one video frame, so a video plays smoothly whatever the
 * GPU's speed. At --record-size (or with the HUD on but not recorded) the
 * video has a picture of its own (io_record_target) that the app draws
 * before the window's; otherwise the frame's own picture is read.
 *
 * A video's frames are converted to YUV 4:2:0 (BT.709, limited range) and
 * flipped on the GPU, 1.5 bytes a pixel, by one of two rings of the same
 * depth (ring_*): on the zero-copy interop path, CUDA's (interop/ maps the
 * picture with the next frame's vertex buffer, video/ converts it and
 * copies it to pinned host memory); elsewhere GL's (render_readback: a
 * shader converts, pixel-pack buffers read back, each mapped once a fence
 * says its copy is done). A writer thread (io_encoder.c) writes each frame
 * straight into ffmpeg's pipe, so the frame loop neither copies nor writes
 * them: it only queues work, maps and unmaps (GL calls stay on its
 * thread). It never drops a frame: when every buffer is taken (the encoder
 * is slower than the loop) it waits for the writer, or for the GPU's
 * oldest copy. PNG sequences read RGBA back through GL's ring and are
 * written as PNGs on the loop's thread.
 *
 * Each recording also tries two ways for the next frame to wait for GL and
 * keeps the faster (a base_trial: io_record_frame_end).
 *
 * A failed --record or --frames-dir makes the run exit 1 (rec->failed); a
 * recording started with M only stops, with the reason on the HUD. A video
 * stopped while the program runs on (M, a resized window) lets its ffmpeg
 * finish in the background, polled with waitpid(WNOHANG) each frame; at
 * exit every one is waited for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_internal.h"

/* Each way is timed for 32 frames or 30 ms, whichever ends first: where
 * polling is the slower way its frames cost several of the other's, and a
 * recording pays for every one of them. */
const base_trial_desc IO_RECORD_POLL_TRIAL = {
    .warm_a = 16, .timed = 32, .max_seconds = 0.03, .b_margin = 1.0};

struct io_recording {
    bool by_key;          /* M: a failure only stops it */
    bool video;           /* else a PNG sequence */
    io_encoder enc;       /* video */
    char dir[PATH_MAX];   /* PNG sequence */
    char shown[PATH_MAX]; /* the absolute path, for the messages */
    int width, height;    /* the frames read back */
    bool offscreen;       /* drawn into target, else the frame's own picture */
    render_target *target;
    render_readback *ring; /* the GL read-back; with cuda, the picture's buffer for CUDA */
    bool cuda;             /* video: converted and sent to the host by CUDA (interop) */
    io_writer out;         /* video: the thread writing into ffmpeg's pipe */
    uint8_t *rgba;         /* PNG sequence: one frame */
    long frames;           /* frames written (video: by the writer) */
    io_recording *next;    /* in the list of videos whose ffmpeg is finishing */
    base_trial poll;       /* the way the next frame waits for GL (zero-copy path only) */
    bool polls;            /* the zero-copy path: a trial runs */
};

void io_record_init(io_recorder *rec, const io_recorder_desc *desc) {
    *rec = (io_recorder){.desc = *desc};
}

/* Says why a recording failed, in the terminal and (window) on the HUD. */
static void report(io_recorder *rec, bool by_key, const io_record_error *err) {
    if (by_key) {
        base_msg_post(rec->desc.msg, "recording stopped: %s", err->what);
        printf("hint: %s\n", err->hint);
        return;
    }
    fprintf(stderr, "nbody: %s\nhint: %s\n", err->what, err->hint);
    if (!rec->desc.headless) base_msg_show(rec->desc.msg, 10.0, err->what);
}

/* The writer, the GL objects and the frame buffer; the rest goes with
 * free(). The writer ends first: it may be reading a mapped buffer. */
static void free_frames(io_recorder *rec, io_recording *r) {
    io_writer_stop(&r->out, true);
    if (r->cuda) interop_video_end(rec->desc.interop); /* before GL deletes the buffer */
    r->cuda = false;
    render_target_destroy(rec->desc.render, r->target);
    render_readback_destroy(r->ring);
    free(r->rgba);
    r->target = NULL;
    r->ring = NULL;
    r->rgba = NULL;
}

static void free_recording(io_recorder *rec, io_recording *r) {
    free_frames(rec, r);
    free(r);
}

/* Stops the recording after a failure: the encoder closed, the reason
 * reported, nothing left under the file's name. */
static void failed(io_recorder *rec, const io_record_error *err) {
    io_recording *r = rec->recording;
    rec->recording = NULL;
    if (!r->by_key) rec->failed = true;
    report(rec, r->by_key, err);
    free_recording(rec, r);
}

/* PNG sequence: writes the oldest frame of the ring. false: the recording
 * failed and is gone. */
static bool write_oldest(io_recorder *rec) {
    io_recording *r = rec->recording;
    render_error gl = {0};
    io_record_error err = {0};
    if (!render_readback_pop(r->ring, r->rgba, &gl)) {
        io_record_fail(&err, gl.hint, "cannot record %s: %s", r->shown, gl.message);
        failed(rec, &err);
        return false;
    }
    for (size_t i = 3; i < (size_t)r->width * r->height * 4; i += 4) r->rgba[i] = 255;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/frame-%06ld.png", r->dir, r->frames);
    if (!io_write_png(path, "--frames-dir frame", r->width, r->height, r->rgba)) {
        /* message printed */
        io_record_fail(&err, "check the folder", "stopped writing frames to %s", r->dir);
        failed(rec, &err);
        return false;
    }
    r->frames++;
    return true;
}

/* Video: the recording failed, with the ffmpeg message of io_encoder_close
 * (why: what the writer saw, or NULL with *gl: a GL failure). */
static bool video_failed(io_recorder *rec, const char *why, const render_error *gl) {
    io_recording *r = rec->recording;
    io_record_error err = {0};
    io_writer_stop(&r->out, true);
    r->enc.frames = r->frames;
    if (gl) {
        io_record_fail(&err, gl->hint, "cannot record %s: %s", r->shown, gl->message);
        io_encoder_close(&r->enc, false, NULL, NULL);
    } else {
        io_encoder_close(&r->enc, false, why, &err);
    }
    failed(rec, &err);
    return false;
}

/* ---- a video's frames: GL's read-back ring, or CUDA's (interop) ---------- */

static int ring_pending(io_recorder *rec, const io_recording *r) {
    return r->cuda ? interop_video_pending(rec->desc.interop) : render_readback_pending(r->ring);
}

static int ring_mapped(io_recorder *rec, const io_recording *r) {
    return r->cuda ? interop_video_mapped(rec->desc.interop) : render_readback_mapped(r->ring);
}

static bool ring_map(io_recorder *rec, io_recording *r, bool wait, const uint8_t **frame,
                     render_error *gl) {
    if (!r->cuda) return render_readback_map(r->ring, wait, frame, gl);
    video_error e = {0};
    if (interop_video_map(rec->desc.interop, wait, frame, &e)) return true;
    snprintf(gl->message, sizeof gl->message, "%s", e.message);
    snprintf(gl->hint, sizeof gl->hint, "%s", e.hint);
    return false;
}

static void ring_release(io_recorder *rec, io_recording *r) {
    if (r->cuda) {
        interop_video_release(rec->desc.interop);
    } else {
        render_readback_release(r->ring);
    }
}

/* drawn_after: something is drawn into the picture after this capture and
 * before the next upload, so CUDA cannot read it in place. */
static void ring_push(io_recorder *rec, io_recording *r, bool drawn_after) {
    if (r->cuda) {
        interop_video_push(rec->desc.interop, rec->desc.render, r->ring,
                           r->offscreen || !drawn_after);
    } else {
        render_readback_push(rec->desc.render, r->ring);
    }
}

/* Video: releases the buffers the writer is done with and hands it every
 * frame the GPU has finished copying. until_free: and then, while every
 * buffer is taken, waits for the writer (or, when it holds none, for the
 * GPU's oldest copy); drain: until every frame is written. false: the
 * recording failed and is gone. */
static bool pump(io_recorder *rec, bool until_free, bool drain) {
    io_recording *r = rec->recording;
    render_error gl = {0};
    long least = 0; /* frames the writer must have done before going on */
    for (;;) {
        int werr = 0;
        const long done = io_writer_done(&r->out, least, &werr);
        for (; r->frames < done; r->frames++) ring_release(rec, r);
        if (werr) {
            char why[128];
            snprintf(why, sizeof why, "stopped reading (%s)", strerror(werr));
            return video_failed(rec, why, NULL);
        }
        const int pending = ring_pending(rec, r);
        const bool must = (until_free && pending == IO_WRITER_DEPTH) || (drain && pending);
        const bool copies = pending > ring_mapped(rec, r); /* not handed over yet */
        /* Waits for the GPU only when the writer holds nothing to free. */
        const bool wait_gpu = must && copies && (drain || ring_mapped(rec, r) == 0);
        const uint8_t *frame = NULL;
        bool first = true;
        do {
            if (!ring_map(rec, r, wait_gpu && first, &frame, &gl)) {
                return video_failed(rec, NULL, &gl);
            }
            if (frame) io_writer_hand(&r->out, frame);
            first = false;
        } while (frame);
        if (!must) return true;
        least = wait_gpu ? 0 : r->frames + 1;
    }
}

/* A video's frames: converted and sent to the host by CUDA where the
 * zero-copy interop path is on (r->cuda; a GL buffer for the picture,
 * desc's size), else GL's YUV420 read-back ring. NULL with *gl. */
static render_readback *video_ring(io_recorder *rec, io_recording *r,
                                   const render_readback_desc *desc, render_error *gl) {
    render_readback_desc d = *desc;
    d.format = RENDER_READBACK_DEVICE;
    render_readback *rb = NULL;
    interop *io = rec->desc.interop;
    if (io->path == INTEROP_ZERO_COPY && (rb = render_readback_create(&d, gl))) {
        video_error e = {0};
        const uint32_t picture = render_picture_renderbuffer(rec->desc.render, r->target);
        if (interop_video_begin(io, rb, picture, d.width, d.height, &e)) {
            r->cuda = true;
            return rb;
        }
        render_readback_destroy(rb);
        if (e.hint[0]) { /* more than the path being off: say why GL reads back instead */
            printf("nbody: the video's frames come back through GL: %s\n", e.message);
        }
    }
    return render_readback_create(desc, gl);
}

void io_record_start(io_recorder *rec, const char *path, const char *frames_dir, bool by_key,
                     int fb_width, int fb_height, bool hud_shown) {
    const io_recorder_desc *d = &rec->desc;
    io_recording *r = calloc(1, sizeof *r);
    io_record_error err = {0};
    if (!r) {
        io_record_fail(&err, "free some memory", "cannot record: out of memory");
        report(rec, by_key, &err);
        if (!by_key) rec->failed = true;
        return;
    }
    r->by_key = by_key;
    r->video = frames_dir == NULL;
    /* Offscreen at --record-size; and at the frame's size when the HUD is on
     * but not wanted in the video, since the window's picture is then
     * shifted to leave the HUD room and the video should show the scene
     * centred. Decided once: Tab during a recording does not change it. */
    r->offscreen = d->width > 0 || (hud_shown && !d->hud);
    r->width = d->width > 0 ? d->width : fb_width;
    r->height = d->width > 0 ? d->height : fb_height;
    r->polls = d->interop->path == INTEROP_ZERO_COPY; /* elsewhere there is no map to wait in */
    r->poll.desc = IO_RECORD_POLL_TRIAL;
    base_trial_start(&r->poll, 0, base_now());
    io_absolute(r->video ? path : frames_dir, r->shown, sizeof r->shown);
    if (!r->video) snprintf(r->dir, sizeof r->dir, "%s", frames_dir);
    rec->recording = r;
    render_error gl = {0};
    const render_readback_desc rd = {.width = r->width,
                                     .height = r->height,
                                     .format =
                                         r->video ? RENDER_READBACK_YUV420 : RENDER_READBACK_RGBA,
                                     .shader_dir = d->shader_dir};
    if (!r->video && !(r->rgba = malloc((size_t)r->width * (size_t)r->height * 4))) {
        io_record_fail(&err, "try a smaller --record-size",
                       "cannot record %s: out of memory for a %dx%d frame", r->shown, r->width,
                       r->height);
    } else if ((r->offscreen && !(r->target = render_target_create(r->width, r->height, &gl))) ||
               !(r->ring =
                     r->video ? video_ring(rec, r, &rd, &gl) : render_readback_create(&rd, &gl))) {
        io_record_fail(&err, gl.hint, "cannot record %s: %s", r->shown, gl.message);
    } else if (r->video) {
        const int fps = d->fps > 0 ? d->fps : IO_RECORD_DEFAULT_FPS;
        if (io_encoder_open(&r->enc, path, r->width, r->height, fps, true, &err)) {
            const size_t bytes = (size_t)r->enc.out_w * (size_t)r->enc.out_h * 3 / 2;
            if (io_writer_start(&r->out, r->enc.fd, bytes)) {
                base_msg_post(d->msg, "recording %dx%d at %d frames/s to %s%s%s", r->enc.out_w,
                              r->enc.out_h, fps, r->shown, by_key ? " (M stops)" : "",
                              r->cuda ? " (converted by CUDA)" : "");
                return;
            }
            io_record_fail(&err, "free some memory or close some programs",
                           "cannot record %s: no thread for the writer: %s", r->shown,
                           strerror(errno));
            io_encoder_close(&r->enc, false, NULL, NULL);
        }
    } else {
        base_msg_post(d->msg, "writing %dx%d frames to %s/frame-NNNNNN.png", r->width, r->height,
                      r->shown);
        return;
    }
    failed(rec, &err);
}

/* Says how a video ended once its ffmpeg exited, and frees it. */
static bool settled(io_recorder *rec, io_recording *r, int status, int sig) {
    io_record_error err = {0};
    const bool ok = io_encoder_settle(&r->enc, status, sig, true, NULL, &err);
    if (ok) {
        base_msg_post(rec->desc.msg, "wrote %s (%ld frames, %dx%d)", r->shown, r->frames,
                      r->enc.out_w, r->enc.out_h);
    } else {
        if (!r->by_key) rec->failed = true;
        report(rec, r->by_key, &err);
    }
    free_recording(rec, r);
    return ok;
}

/* Ends the recording: the frames still in the ring, then the input of
 * ffmpeg. With wait, until ffmpeg has exited; else ffmpeg finishes (the
 * encoder's last frames take a while at large sizes) while the loop runs
 * on, and io_record_update settles it. */
static void stop(io_recorder *rec, bool wait) {
    io_recording *r = rec->recording;
    if (r->video && !pump(rec, false, true)) return; /* reported, freed */
    while (!r->video && render_readback_pending(r->ring) > 0) {
        if (!write_oldest(rec)) return; /* reported, freed */
    }
    rec->recording = NULL;
    r->enc.frames = r->frames;
    free_frames(rec, r); /* the writer has written every frame: it just ends */
    if (!r->video) {
        base_msg_post(rec->desc.msg, "wrote %ld frames to %s", r->frames, r->shown);
        free_recording(rec, r);
        return;
    }
    close(r->enc.fd);
    r->enc.fd = -1;
    int sig = 0;
    const int status = io_encoder_wait(r->enc.pid, wait, &sig);
    if (status != -2) {
        settled(rec, r, status, sig);
        return;
    }
    r->next = rec->closing;
    rec->closing = r;
}

void io_record_stop(io_recorder *rec) {
    if (rec->recording) stop(rec, false);
}

bool io_record_running(const io_recorder *rec) {
    return rec->recording != NULL;
}

io_record_info io_record_get_info(const io_recorder *rec) {
    const io_recording *r = rec->recording;
    if (!r) return (io_record_info){.on = false};
    return (io_record_info){.on = true,
                            .video = r->video,
                            .frames = r->frames,
                            .fps = rec->desc.fps > 0 ? rec->desc.fps : IO_RECORD_DEFAULT_FPS};
}

/* Settles the videos whose ffmpeg has exited (block: waits for all). */
static void settle_closing(io_recorder *rec, bool block) {
    io_recording **link = &rec->closing;
    while (*link) {
        io_recording *r = *link;
        int sig = 0;
        const int status = io_encoder_wait(r->enc.pid, block, &sig);
        if (status == -2) {
            link = &r->next;
            continue;
        }
        *link = r->next;
        settled(rec, r, status, sig);
    }
}

void io_record_update(io_recorder *rec, int fb_width, int fb_height) {
    settle_closing(rec, false);
    const io_recording *r = rec->recording;
    if (r && !r->offscreen && (fb_width != r->width || fb_height != r->height)) {
        stop(rec, false);
        base_msg_post(rec->desc.msg,
                      "recording stopped: the window was resized (--record-size keeps one size)");
    }
}

render_target *io_record_target(const io_recorder *rec, int *width, int *height) {
    const io_recording *r = rec->recording;
    if (!r || !r->offscreen) return NULL;
    *width = r->width;
    *height = r->height;
    return r->target;
}

void io_record_frame_end(io_recorder *rec) {
    io_recording *r = rec->recording;
    if (!r || !r->polls) return;
    const double now = base_now();
    if (base_trial_frame_end(&r->poll, now) && rec->desc.profile) {
        printf("nbody: recording: %.0f frames/s with the interop map's wait for GL, %.0f "
               "polling a fence first; %s\n",
               1.0 / r->poll.a_s, 1.0 / r->poll.b_s,
               r->poll.a_chosen ? "not polling" : "polling from now on");
    }
    if (!base_trial_use_a(&r->poll, 0, now)) interop_fence_frame(rec->desc.interop);
}

void io_record_capture(io_recorder *rec, bool offscreen, bool drawn_after) {
    io_recording *r = rec->recording;
    if (!r || r->offscreen != offscreen) return;
    if (r->video) {
        if (!pump(rec, true, false)) return; /* reported, freed */
        ring_push(rec, r, drawn_after);      /* a buffer is free */
        pump(rec, false, false);
        return;
    }
    /* The ring is never full here: a full one is emptied by one below. */
    render_readback_push(rec->desc.render, r->ring);
    if (render_readback_pending(r->ring) == RENDER_READBACK_DEPTH) write_oldest(rec);
}

bool io_record_finish(io_recorder *rec) {
    if (rec->recording) stop(rec, true);
    settle_closing(rec, true);
    return !rec->failed;
}
