#!/usr/bin/env python3
"""A ResNet-18-style CNN (BasicBlocks 64-128-256-512, batch norm, CIFAR-style stem) trained in fp32
on fixed-size 64x64 images, batch 128, SGD with momentum: the textbook image-classification loop,
written by hand (torchvision may be absent). Data is generated on the GPU once, so the only host
work per step is launching.

Planted: TF32 switched off for cuDNN (`torch.backends.cudnn.allow_tf32 = False`, as people do
"for reproducibility"), so every fp32 convolution runs on the FMA pipes instead of the tensor
cores. Fixed: PyTorch's default (TF32 allowed for convolutions). Both set cudnn.benchmark = True
(same shapes every step), so the algorithm search is not a second cause; with it off the step
changed by 1.6 % on an H200, too little to plant.
"""
import torch
from torch import nn
from torch.nn import functional as F

import diag_common

BATCH, SIZE, CLASSES = 128, 64, 100


class BasicBlock(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.shortcut = nn.Sequential()
        if stride != 1 or c_in != c_out:
            self.shortcut = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False),
                                          nn.BatchNorm2d(c_out))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet18(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64),
                                  nn.ReLU())
        layers, c_in = [], 64
        for c_out, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [BasicBlock(c_in, c_out, stride), BasicBlock(c_out, c_out, 1)]
            c_in = c_out
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def main():
    args = diag_common.parse_args(__doc__, default_steps=30)
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = args.fixed
    with torch.device("cuda"):
        model = ResNet18(CLASSES)
        images = torch.randn(4, BATCH, 3, SIZE, SIZE)   # 4 batches, cycled
        labels = torch.randint(0, CLASSES, (4, BATCH))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    losses = []

    def step(i):
        loss = F.cross_entropy(model(images[i % 4]), labels[i % 4])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.detach())

    per_step = diag_common.timed_steps(step, args.steps, args.blocks)
    diag_common.report("cnn", args.fixed, per_step, args.steps, diag_common.checksum_of(losses),
                       cudnn_tf32=torch.backends.cudnn.allow_tf32)


if __name__ == "__main__":
    main()
