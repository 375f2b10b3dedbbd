# model zoo sources
ttune_module(models SOURCES models/builder.cc models/attention.cc models/resnet.cc models/vgg_alexnet.cc
             models/mobilenet.cc models/efficientnet.cc models/googlenet.cc models/mnasnet.cc models/bert.cc
             models/mobilebert.cc models/regnet.cc models/zoo.cc DEPS ttune_graph)
