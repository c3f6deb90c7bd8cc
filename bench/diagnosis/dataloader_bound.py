#!/usr/bin/env python3
"""Image classification fed by a torch.utils.data.DataLoader whose Dataset does its augmentation
on the CPU per sample (decode stand-in, random crop, flip, blur, colour jitter, normalize), the
way a hand-written torchvision-style pipeline does. Model: the ResNet-18-style net of cnn.py,
cudnn.benchmark on, batch 128 of 64x64 images.

Planted: DataLoader(num_workers=0), the default: the main process prepares each batch (~0.2 ms
of CPU per sample) between steps while the GPU has nothing queued; the batch is copied from
pageable memory. Fixed: num_workers=4, pin_memory=True, persistent_workers=True,
prefetch_factor=4 and .cuda(non_blocking=True): the workers prepare batches ahead while the GPU
trains. Same samples in the same order (per-index seeds, seeded shuffle).
"""
import torch
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset

import diag_common
from cnn import ResNet18

BATCH, SIZE, CLASSES = 128, 64, 100
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
BLUR = torch.full((3, 1, 3, 3), 1.0 / 9)


class SyntheticImages(Dataset):
    """Sample i is generated from seed i, so any worker produces the same sample."""

    def __init__(self, n, blur_passes):
        self.n, self.blur_passes = n, blur_passes

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        img = torch.rand(3, SIZE + 16, SIZE + 16, generator=g)          # "decoded" image
        top, left = torch.randint(0, 17, (2,), generator=g).tolist()    # random crop
        img = img[:, top:top + SIZE, left:left + SIZE]
        if torch.rand(1, generator=g).item() < 0.5:                      # horizontal flip
            img = img.flip(2)
        for _ in range(self.blur_passes):                                # blur augmentation
            img = F.conv2d(img.unsqueeze(0), BLUR, padding=1, groups=3).squeeze(0)
        brightness, contrast = (0.8 + 0.4 * torch.rand(2, generator=g)).tolist()
        img = ((img * brightness - img.mean()) * contrast + img.mean()).clamp(0, 1)
        return (img - MEAN) / STD, i % CLASSES


def main():
    def extra(p):
        p.add_argument("--blur-passes", type=int, default=3,
                       help="CPU cost per sample (more passes, slower data)")
    args = diag_common.parse_args(__doc__, default_steps=40, extra=extra)
    torch.backends.cudnn.benchmark = True
    dataset = SyntheticImages(args.steps * BATCH, args.blur_passes)
    order = torch.Generator().manual_seed(args.seed)
    if args.fixed:
        loader = DataLoader(dataset, batch_size=BATCH, shuffle=True, generator=order,
                            num_workers=4, pin_memory=True, persistent_workers=True,
                            prefetch_factor=4)
    else:
        loader = DataLoader(dataset, batch_size=BATCH, shuffle=True, generator=order)
    with torch.device("cuda"):
        model = ResNet18(CLASSES)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    batches = iter(loader)
    losses = []

    def step(_):
        x, y = next(batches)
        x, y = x.cuda(non_blocking=args.fixed), y.cuda(non_blocking=args.fixed)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.detach())

    per_step = diag_common.timed_steps(step, args.steps, args.blocks)
    diag_common.report("dataloader_bound", args.fixed, per_step, args.steps,
                       diag_common.checksum_of(losses))


if __name__ == "__main__":
    main()
