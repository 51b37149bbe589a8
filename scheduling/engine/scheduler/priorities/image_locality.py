"""ImageLocalityPriority, the 1.11 variant (`priorities/image_locality.go` at v1.11.0:
no image-spread scaling, that came in 1.12).

Map: the sum of the sizes of the node's images (`status.images[].sizeBytes`, indexed by
every name in `names`, verbatim; a later image wins for a repeated name, as
`NodeInfo.ImageSizes` builds its map) named like one of the pod's regular containers'
images, after normalisation (no tag -> `:latest`:
`if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") { name += ":latest" }`).
Every container counts, so two containers with the same image count it twice.

    mb = 1024 * 1024; minImgSize = 23 * mb; maxImgSize = 1000 * mb
    sumSize == 0 || sumSize < minImgSize -> 0
    sumSize >= maxImgSize                -> 10
    otherwise int((10 * (sumSize - minImgSize) / (maxImgSize - minImgSize)) + 1)

No reduce.
"""

from __future__ import annotations

from scheduling.engine.scheduler.priorities.normalize import node_cached

NAME = "ImageLocalityPriority"

MB = 1024 * 1024
MIN_IMG_SIZE = 23 * MB
MAX_IMG_SIZE = 1000 * MB


def normalized_image_name(name: str) -> str:
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def score_from_size(sum_size: int) -> int:
    if sum_size == 0 or sum_size < MIN_IMG_SIZE:
        return 0
    if sum_size >= MAX_IMG_SIZE:
        return 10
    return 10 * (sum_size - MIN_IMG_SIZE) // (MAX_IMG_SIZE - MIN_IMG_SIZE) + 1


def _image_sizes(info) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for image in info.node.images:
        for name in image.names:
            sizes[name] = image.size_bytes
    return sizes


def image_locality_priority(pod, ctx, infos) -> list[int]:
    names = ctx.memo.get("image_locality")
    if names is None:
        names = ctx.memo["image_locality"] = [normalized_image_name(c.image) for c in pod.containers]
    out = []
    for info in infos:
        if not info.node.images or not names:
            out.append(0)
            continue
        sizes = node_cached(info, "image_sizes", _image_sizes, token=info.node)
        total = 0
        for name in names:
            size = sizes.get(name)
            if size is not None:
                total += size
        out.append(score_from_size(total))
    return out


# Reads only the node and the pod's images: the scheduler's cache (engine.scheduler.cache) computes it
# once per run for each list of images (it has no reduce step).
image_locality_priority.static_key = lambda pod: tuple(c.image for c in pod.containers)
